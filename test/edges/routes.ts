import type { FastifyInstance } from 'fastify';

export interface RouteInfo {
  method: string;
  /** With `:name` placeholders, as registered. */
  path: string;
}

/** Every route the app serves, read from `app.printRoutes()`'s tree (hidden ones included, unlike OpenAPI). */
export function routesOf(app: FastifyInstance): RouteInfo[] {
  const out: RouteInfo[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    const path = stack.join('');
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      if (method !== 'HEAD') out.push({ method, path });
    }
  }
  return out;
}
