/** The spec's nine scopes plus the contract's two for webhook endpoints. */
export const SCOPES = [
  'quotes:read',
  'shipments:read',
  'shipments:write',
  'shipments:void',
  'labels:read',
  'tracking:read',
  'addresses:read',
  'addresses:write',
  'account:read',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
