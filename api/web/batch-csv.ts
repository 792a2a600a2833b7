import { BATCH_MAX_ITEMS } from '../../domain/index.js';
import { fieldErrors } from '../problem.js';
import { CreateBatchSchema, type CreateBatch } from '../schemas-shipment.js';
import { createValidatorCompiler } from '../validation.js';
import { readCsv } from './csv-records.js';

/** The portal's order file, one order a line, in this order (contract: Batches, "Portal CSV columns"). */
export const CSV_COLUMNS = [
  'reference',
  'service',
  'from_name',
  'from_line1',
  'from_line2',
  'from_city',
  'from_postcode',
  'from_country',
  'to_name',
  'to_line1',
  'to_line2',
  'to_city',
  'to_postcode',
  'to_country',
  'weight_g',
  'length_mm',
  'width_mm',
  'height_mm',
] as const;
/**
 * Two optional columns after `height_mm`, both or neither: the sender's and the recipient's state or
 * province, which US and Canadian addresses need (domain/address.ts) and the contract's columns
 * lack. A file of the contract's columns alone reads as it always has.
 */
export const CSV_STATE_COLUMNS = ['from_state', 'to_state'] as const;
type BaseColumn = (typeof CSV_COLUMNS)[number];
type Column = BaseColumn | (typeof CSV_STATE_COLUMNS)[number];
/** The header lines a file may start with. */
const HEADERS: ReadonlyArray<readonly Column[]> = [CSV_COLUMNS, [...CSV_COLUMNS, ...CSV_STATE_COLUMNS]];

/** One thing wrong with the file: its line (1 is the header) and the column, when there is one. */
export interface CsvProblem {
  line: number;
  column?: string;
  message: string;
}

export type OrdersFile = { ok: true; body: CreateBatch } | { ok: false; problems: CsvProblem[] };

const MAX_PROBLEMS = 50;
const PARCEL = new Set<BaseColumn>(['weight_g', 'length_mm', 'width_mm', 'height_mm']);

/** A cell as the purchase body's field: trimmed (as the API trims), an empty optional one left out. */
function address(cells: Partial<Record<Column, string>>, side: 'from' | 'to') {
  const out: Record<string, string> = {};
  for (const f of ['name', 'line1', 'line2', 'city', 'state', 'postcode', 'country'] as const) {
    const v = cells[`${side}_${f}`] ?? '';
    // The country is folded to capitals, as the API folds it before validation.
    if (v !== '') out[f] = f === 'country' ? v.toUpperCase() : v;
  }
  return out;
}

/** Whole numbers in decimal digits become numbers; anything else stays text, for the schema to refuse. */
const integer = (v: string): number | string | undefined => (v === '' ? undefined : /^\d{1,15}$/.test(v) ? Number(v) : v);

/** `shipments.3.parcel.weight_g` → the column `weight_g`; a field with no column keeps its path (`from.state`). */
function columnOf(field: string): string {
  const [head, rest] = field.split(/\.(.*)/s);
  if (head === 'parcel' && PARCEL.has(rest as BaseColumn)) return rest;
  if ((head === 'from' || head === 'to') && (HEADERS[1] as readonly string[]).includes(`${head}_${rest}`)) return `${head}_${rest}`;
  return field;
}

/**
 * Reads an order file into a `POST /batches` body, checked by the API's own schema: the batch
 * starts only when every line is right, and every line that is not is named with its column.
 */
export function ordersFromCsv(file: Buffer | string, labelFormat: string): OrdersFile {
  // The header, the most orders a batch holds and one more, to say the file has too many.
  const read = readCsv(typeof file === 'string' ? Buffer.from(file) : file, { maxRecords: BATCH_MAX_ITEMS + 2, maxFields: 100 });
  if (!read.ok) return { ok: false, problems: [read.problem] };
  const records = read.records;
  const [header, ...rows] = records;
  const expected = CSV_COLUMNS.join(',');
  const given = header?.fields.map((f) => f.trim()).join(',');
  const columns = HEADERS.find((h) => h.join(',') === given);
  if (!header || !columns) {
    return {
      ok: false,
      problems: [{ line: header?.line ?? 1, message: `the first line must be the header line ${expected}, optionally followed by ,${CSV_STATE_COLUMNS.join(',')}` }],
    };
  }
  if (rows.length === 0) return { ok: false, problems: [{ line: header.line + 1, message: 'the file has no orders below its header line' }] };
  if (rows.length > BATCH_MAX_ITEMS) {
    return { ok: false, problems: [{ line: rows[BATCH_MAX_ITEMS].line, message: `a batch holds at most ${BATCH_MAX_ITEMS.toLocaleString('en-GB')} orders` }] };
  }
  const problems: CsvProblem[] = [];
  const shipments = rows.map((row) => {
    if (row.fields.length !== columns.length) {
      problems.push({ line: row.line, message: `has ${row.fields.length} fields; every line has ${columns.length}, in the header's order` });
    }
    const cells = Object.fromEntries(columns.map((c, i) => [c, (row.fields[i] ?? '').trim()])) as Record<BaseColumn, string> & Partial<Record<Column, string>>;
    return {
      ...(cells.reference !== '' ? { reference: cells.reference } : {}),
      ...(cells.service !== '' ? { service: cells.service } : {}),
      from: address(cells, 'from'),
      to: address(cells, 'to'),
      parcel: Object.fromEntries([...PARCEL].map((c) => [c, integer(cells[c])]).filter(([, v]) => v !== undefined)),
    };
  });
  if (problems.length) return { ok: false, problems: problems.slice(0, MAX_PROBLEMS) };
  const body = { shipments, label_format: labelFormat };
  if (!validate(body)) {
    const errors = fieldErrors((validate as unknown as { errors: never[] }).errors ?? [], 'body', body);
    for (const e of errors) {
      const m = /^shipments\.(\d+)\.(.+)$/.exec(e.path);
      if (m) problems.push({ line: rows[Number(m[1])].line, column: columnOf(m[2]), message: e.message });
      else problems.push({ line: 0, column: e.path, message: e.message });
    }
    problems.sort((a, b) => a.line - b.line);
    return { ok: false, problems: problems.slice(0, MAX_PROBLEMS) };
  }
  return { ok: true, body: body as CreateBatch };
}

const validate = createValidatorCompiler()({ schema: CreateBatchSchema, method: 'POST', url: '/batches', httpPart: 'body' });
