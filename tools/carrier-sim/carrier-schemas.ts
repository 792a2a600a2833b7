import type { IncomingHttpHeaders } from 'node:http';
import type { OperationSchemas } from '../../carriers/carrier-schemas.js';

/**
 * A simulator's way to its carrier's generated schemas (carriers/<carrier>/schemas): which documented
 * operation a request is, by method and path, and every way its parameters, body and answer break
 * the carrier's document.
 */

export interface SchemaRoute {
  readonly name: string;
  readonly method: string;
  readonly pattern: RegExp;
  readonly params: readonly string[];
  readonly schemas: OperationSchemas;
}

/** The documented operations as routes, each path under the prefix where the carrier serves its document. */
export function schemaRoutes(all: Readonly<Record<string, OperationSchemas>>, prefixOf: (schemas: OperationSchemas) => string): SchemaRoute[] {
  return Object.entries(all).map(([name, schemas]) => {
    const params: string[] = [];
    const template = (prefixOf(schemas) + schemas.source.path).replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    const source = template.replace(/\{([^}]+)\}/g, (_, param: string) => {
      params.push(param);
      return '([^/]+)';
    });
    return { name, method: schemas.source.method, pattern: new RegExp(`^${source}$`), params, schemas };
  });
}

/** The request's documented operation and its path parameters, or undefined for a path the documents do not have. */
export function findSchemaRoute(routes: readonly SchemaRoute[], method: string, path: string): { route: SchemaRoute; path: Record<string, string> } | undefined {
  for (const route of routes) {
    const m = route.method === method ? route.pattern.exec(path) : null;
    if (m) return { route, path: Object.fromEntries(route.params.map((p, i) => [p, decodeURIComponent(m[i + 1])])) };
  }
  return undefined;
}

/** Query text as the schemas read it: a repeated name is a list. */
function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

export interface SchemaRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The parsed body; undefined when there is none. */
  readonly body: unknown;
}

/** Every way a request breaks its operation's document (closed body: nothing the document does not define). */
export function requestSchemaProblems(routes: readonly SchemaRoute[], req: SchemaRequest): string[] {
  const found = findSchemaRoute(routes, req.method, req.path);
  if (!found) return [`${req.method} ${req.path} is no documented operation`];
  const { schemas } = found.route;
  return [
    ...schemas.parameterProblems({ path: found.path, query: queryObject(req.query), header: req.headers }),
    ...(req.body === undefined ? [] : schemas.requestProblems(req.body)),
  ];
}

/** Every way an answer breaks what the operation's document says of its status and media type. */
export function answerSchemaProblems(routes: readonly SchemaRoute[], method: string, path: string, status: number, body: unknown, mediaType?: string): string[] {
  const found = findSchemaRoute(routes, method, path);
  if (!found) return [];
  return found.route.schemas.responseProblems(status, body, mediaType);
}
