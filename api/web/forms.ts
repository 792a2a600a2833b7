/** Form bodies (application/x-www-form-urlencoded) as the pages read them. */
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

export function parseForm(text: string): Form {
  const out: Form = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}
