/**
 * Form bodies as the pages read them: a field sent once is a string, a repeated one (checkboxes) an
 * array. `@fastify/formbody` (fast-querystring) reads urlencoded forms this way in one pass, and the
 * upload form's text fields are gathered the same way (api/web/uploads.ts).
 */
export type Form = Record<string, string | string[] | undefined>;
/** One value of a form field (the first, if it was sent several times). */
export const field = (form: Form | undefined, name: string): string => {
  const v = form?.[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
};
/** Every value of a repeated field (checkboxes). */
export const fields = (form: Form | undefined, name: string): string[] => {
  const v = form?.[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};
