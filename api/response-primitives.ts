import { Type, type TSchema } from '@sinclair/typebox';

/** The small pieces every response schema is built of (api/response-objects.ts). */
export const literals = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {});
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const timestamp = (description: string) => Type.String({ format: 'date-time', description });
export const money = (description: string) => Type.String({ pattern: '^-?\\d+\\.\\d{2}$', description });
export const livemode = Type.Boolean({ description: 'false for sandbox objects' });
export const closed = { additionalProperties: false } as const;

