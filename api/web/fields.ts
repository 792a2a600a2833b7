import { ApiError, type FieldError } from '../../domain/index.js';
import { html, type Html } from './html.js';

/**
 * Form fields that say what is wrong with them: each input has its label, its hint and its error
 * message tied to it (`for`, `aria-describedby`, `aria-invalid`), and a summary at the top of the
 * form links to every field at fault, so a refusal is read where it was caused, by eye or by a
 * screen reader. The API's validation answers with paths (`to.postcode`, `customs.items[0].value`);
 * a form names its fields by the same paths, so an error finds its field without a table between.
 */

/** A field's element id: its name with dots as dashes (`customs.items.0.value` → `customs-items-0-value`). */
export const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** An API path in the form's spelling: list indexes as dotted parts (`items[0]` → `items.0`). */
export const dotted = (path: string) => path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');

/** Where a form shows an API error of this path (dotted), in what words. */
export type FieldOf = (path: string, message: string) => { field: string | null; message: string };

/** The refusals of one form: messages by field name, and those no field of the page can hold. */
export class Problems {
  private readonly byField = new Map<string, string[]>();
  private readonly labels = new Map<string, string>();
  private readonly shown = new Set<string>();
  readonly general: string[] = [];

  /** Adds a message to a field (by its name in the form), or to the form as a whole. */
  add(field: string | null, message: string): this {
    if (!field) this.general.push(message);
    else this.byField.set(field, [...(this.byField.get(field) ?? []), message]);
    return this;
  }

  /**
   * Adds an API refusal: each of its `errors` at the field its path names (through `toField`, which
   * may word the message for the field it chose, and answers a null field for a path the form has
   * no field for), or the refusal's own message when it names none.
   */
  addRefusal(err: ApiError, toField: FieldOf = (path, message) => ({ field: path || null, message })): this {
    const errors: FieldError[] = err.extra.errors ?? [];
    if (!errors.length) return this.add(null, err.message);
    for (const e of errors) {
      const { field, message } = toField(dotted(e.path), e.message);
      this.add(field, field ? message : `${e.path || 'form'} ${e.message}`);
    }
    return this;
  }

  at(field: string): string[] {
    return this.byField.get(field) ?? [];
  }

  get any(): boolean {
    return this.general.length > 0 || this.byField.size > 0;
  }

  /** Notes that a field was drawn, with its label (the summary names it so). */
  drawn(field: string, label: string): void {
    this.labels.set(field, label);
    this.shown.add(field);
  }

  /**
   * The summary at the top of the form, drawn after its fields: a link to every field at fault, and
   * the messages of fields this page does not draw, so no refusal goes unsaid.
   */
  summary(): Html | '' {
    if (!this.any) return '';
    const items: Html[] = this.general.map((m) => html`<li>${m}</li>`);
    for (const [field, messages] of this.byField) {
      for (const m of messages) {
        items.push(this.shown.has(field) ? html`<li><a href="#${fieldId(field)}">${this.labels.get(field)}: ${m}</a></li>` : html`<li>${field} ${m}</li>`);
      }
    }
    return html`<div class="error" role="alert" id="problems"><p><strong>${items.length === 1 ? 'There is a problem' : `There are ${items.length} problems`}</strong></p><ul>${items}</ul></div>`;
  }
}

export interface InputSpec {
  name: string;
  label: string;
  value?: string;
  type?: 'text' | 'email' | 'tel' | 'date' | 'search';
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  inputmode?: 'numeric' | 'decimal' | 'text';
  /** A narrow box (numbers, codes). */
  short?: boolean;
  maxlength?: number;
}

/** What ties a field to its hint and errors: the ids it is described by, and its error messages. */
function described(p: Problems, name: string, label: string, hint?: string) {
  p.drawn(name, label);
  const id = fieldId(name);
  const errors = p.at(name);
  const by = [hint ? `${id}-hint` : '', errors.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    id,
    attrs: html`${by ? html` aria-describedby="${by}"` : ''}${errors.length ? html` aria-invalid="true"` : ''}`,
    hint: hint ? html`<span class="hint" id="${id}-hint">${hint}</span>` : '',
    error: errors.length ? html`<span class="field-error" id="${id}-error">${errors.join('; ')}</span>` : '',
  };
}

/** A labelled text input with its hint and its error messages. */
export function input(p: Problems, f: InputSpec): Html {
  const d = described(p, f.name, f.label, f.hint);
  return html`<div class="field${f.short ? ' short' : ''}"><label for="${d.id}">${f.label}${f.required ? '' : html` <span class="muted">(optional)</span>`}</label>${d.hint}
<input id="${d.id}" name="${f.name}" type="${f.type ?? 'text'}" value="${f.value ?? ''}"${f.required ? html` required` : ''}${
    f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''
  }${f.inputmode ? html` inputmode="${f.inputmode}"` : ''}${f.maxlength ? html` maxlength="${f.maxlength}"` : ''}${d.attrs}>${d.error}</div>`;
}

/** A labelled select; `choices` are [value, text] pairs. */
export function select(p: Problems, f: { name: string; label: string; value: string; choices: Array<[string, string]>; hint?: string }): Html {
  const d = described(p, f.name, f.label, f.hint);
  return html`<div class="field"><label for="${d.id}">${f.label}</label>${d.hint}
<select id="${d.id}" name="${f.name}"${d.attrs}>${f.choices.map(([v, t]) => html`<option value="${v}"${v === f.value ? html` selected` : ''}>${t}</option>`)}</select>${d.error}</div>`;
}

/** A checkbox with its label after it, sending "1" when ticked. */
export function checkbox(p: Problems, f: { name: string; label: string; checked: boolean; hint?: string }): Html {
  const d = described(p, f.name, f.label, f.hint);
  return html`<div class="field check"><input id="${d.id}" name="${f.name}" type="checkbox" value="1"${f.checked ? html` checked` : ''}${d.attrs}> <label for="${d.id}">${f.label}</label>${d.hint}${d.error}</div>`;
}

/** Messages held by a field that is not an input (a group of choices): shown where it is drawn. */
export function groupError(p: Problems, name: string, label: string): { id: string; error: Html | string } {
  const d = described(p, name, label);
  return { id: d.id, error: d.error };
}

/**
 * The form's default button, first in it: Enter in a text field presses the first submit button of
 * its form (HTML's implicit submission), which would otherwise be whichever button comes first (an
 * address check). Kept out of sight, of the tab order and of screen readers: the visible button
 * with the same action is the one people use.
 */
export const defaultAction = (value: string, text: string) =>
  html`<button type="submit" name="action" value="${value}" class="default-action" tabindex="-1" aria-hidden="true">${text}</button>`;
