/** IPv4 and IPv6 CIDR matching without I/O, for key allowlists and trusted proxies. */

function parseIPv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

function parseIPv6(text: string): number[] | null {
  let head = text;
  let tailV4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.') && lastColon >= 0) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return null;
    tailV4 = v4;
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const toGroups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = toGroups(halves[0]);
  const right = halves.length === 2 ? toGroups(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? left.length !== 8 : missing < 1) return null;
  const groups = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  const bytes: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const v = parseInt(g, 16);
    bytes.push(v >> 8, v & 0xff);
  }
  if (tailV4.length) bytes.splice(12, 4, ...tailV4);
  return bytes;
}

/** Bytes of an address; IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes plain IPv4. */
export function parseIp(text: string): number[] | null {
  const v4 = parseIPv4(text);
  if (v4) return v4;
  const v6 = parseIPv6(text.replace(/%.*$/, ''));
  if (!v6) return null;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped ? v6.slice(12) : v6;
}

export function isValidCidr(cidr: string): boolean {
  const [addr, bits, extra] = cidr.split('/');
  if (extra !== undefined) return false;
  const bytes = parseIp(addr);
  if (!bytes) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= bytes.length * 8;
}

export function ipInCidr(ip: string, cidr: string): boolean {
  const [addr, bitsText] = cidr.split('/');
  const target = parseIp(ip);
  const net = parseIp(addr);
  if (!target || !net || target.length !== net.length) return false;
  const bits = bitsText === undefined ? net.length * 8 : Number(bitsText);
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((target[byte] & mask) !== (net[byte] & mask)) return false;
  }
  return true;
}

export function ipAllowed(ip: string, allowlist: readonly string[]): boolean {
  return allowlist.some((cidr) => ipInCidr(ip, cidr));
}
