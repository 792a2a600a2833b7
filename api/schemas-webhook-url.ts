// A webhook URL (contract: Webhooks) as far as its text says: https (or http where private
// addresses are allowed), a host name or an IP address, no credentials and no fragment, a path and
// query of URL characters. Whether the host is public (a name resolving to public addresses only)
// is checked when the endpoint is registered, and again at each delivery.
const HEX4 = '[0-9A-Fa-f]{1,4}';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV6 = [
  `(?:${HEX4}:){7}${HEX4}`,
  `(?:${HEX4}:){1,7}:`,
  ...[1, 2, 3, 4, 5, 6].map((n) => `(?:${HEX4}:){1,${7 - n}}(?::${HEX4}){1,${n}}`),
  `:(?:(?::${HEX4}){1,7}|:)`,
].join('|');
// A label of a host name. `xn--` starts a punycode label, which must decode; the last label starts
// with a letter, since one of digits (`a.09`) would be read as an IPv4 address.
const LABEL = '(?![Xx][Nn]--)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const LAST_LABEL = '(?![Xx][Nn]--)[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = `(?:(?:${LABEL}\\.)*${LAST_LABEL}\\.?|${OCTET}(?:\\.${OCTET}){3}|\\[(?:${IPV6})\\])`;
const PORT = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?';
const PCHAR = "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
const webhookUrlPattern = (schemes: string) => `^${schemes}://${HOST}${PORT}(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?$`;
/** The pattern of a webhook URL, by whether private addresses (and plain http) are allowed. */
// A scheme is case-insensitive (RFC 3986 §3.1): `HTTPS://` is the same URL.
export const WEBHOOK_URL_PATTERNS = { public: webhookUrlPattern('[Hh][Tt][Tt][Pp][Ss]'), private: webhookUrlPattern('[Hh][Tt][Tt][Pp][Ss]?') } as const;
