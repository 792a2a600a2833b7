// The portal's order file readers: CSV as spreadsheets write it (csv-parse), and the file's lines
// turned into a POST /batches body checked by the API's own schema, each problem named by its line
// and column. The browser's multipart form is read over HTTP in portal-batches-http.test.ts.
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, CSV_STATE_COLUMNS, ordersFromCsv } from '../../api/web/batch-csv.js';
import { readCsv } from '../../api/web/csv-records.js';

const LIMITS = { maxRecords: 1000, maxFields: 100 };
const records = (text: string) => {
  const read = readCsv(Buffer.from(text), LIMITS);
  if (!read.ok) throw new Error(`Line ${read.problem.line}: ${read.problem.message}`);
  return read.records;
};
const problem = (text: string) => {
  const read = readCsv(Buffer.from(text), LIMITS);
  return read.ok ? undefined : read.problem;
};

describe('readCsv', () => {
  it('reads plain fields, empty fields and every line ending, mixed, skipping blank lines', () => {
    expect(records('a,b,c\r\n1,,3\n\n4,5,\r\n')).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', '', '3'] },
      { line: 4, fields: ['4', '5', ''] },
    ]);
    expect(records('x\ry')).toEqual([
      { line: 1, fields: ['x'] },
      { line: 2, fields: ['y'] },
    ]);
    expect(records('a\r\r\nb')).toEqual([
      { line: 1, fields: ['a'] },
      { line: 3, fields: ['b'] },
    ]);
    expect(records('')).toEqual([]);
    expect(records(',')).toEqual([{ line: 1, fields: ['', ''] }]);
  });

  it('reads quoted fields holding commas, doubled quotes and line breaks, and counts their lines', () => {
    expect(records('\ufeffref,"Flat 2, ""The Old Mill""",""\r\n"two\r\nlines",x\nlast,"a\nb"')).toEqual([
      { line: 1, fields: ['ref', 'Flat 2, "The Old Mill"', ''] },
      { line: 2, fields: ['two\r\nlines', 'x'] },
      { line: 4, fields: ['last', 'a\nb'] },
    ]);
    // Blank lines before a record, and a byte order mark before blank lines, are not counted as its line.
    expect(records('\ufeff\n\na\n\n\n"b\r\nc",d\n\ne')).toEqual([
      { line: 3, fields: ['a'] },
      { line: 6, fields: ['b\r\nc', 'd'] },
      { line: 9, fields: ['e'] },
    ]);
    // UTF-8 text is read as text, and the lines after it keep their numbers.
    expect(records('Zoë,“quoted”\nnext')).toEqual([
      { line: 1, fields: ['Zoë', '“quoted”'] },
      { line: 2, fields: ['next'] },
    ]);
  });

  it('names the line of a broken quote: the line its record starts on', () => {
    expect(problem('a,b\n1,2\n3,"open\nstill open')).toEqual({ line: 3, message: 'a quoted field is not closed (a " is missing)' });
    expect(problem('a,b\r\n"x\r\ny",2\r\n\r\n3,"open\nstill open')).toMatchObject({ line: 5, message: expect.stringMatching(/^a quoted field is not closed/) });
    expect(problem('a\n"x"y,b')).toEqual({ line: 2, message: expect.stringMatching(/^text follows a closing quote/) });
    expect(problem('a\nx"y')).toEqual({ line: 2, message: expect.stringMatching(/^a quote inside an unquoted field/) });
  });

  it('stops at the most records asked for, and at a record of too many fields, whatever follows', () => {
    const many = Buffer.from('a\n'.repeat(1_000_000));
    const read = readCsv(many, { maxRecords: 3, maxFields: 100 });
    expect(read).toEqual({ ok: true, records: [1, 2, 3].map((line) => ({ line, fields: ['a'] })) });
    expect(problem(`a,b\n1,2\n${','.repeat(2_000_000)}`)).toEqual({ line: 3, message: "has more than 100 fields; every line has the header's" });
    expect(problem(`a\n${','.repeat(99)}\n`)).toBeUndefined();
  });
});

describe('ordersFromCsv', () => {
  const header = CSV_COLUMNS.join(',');
  const line = (o: Partial<Record<(typeof CSV_COLUMNS)[number], string>> = {}) => {
    const row: Record<string, string> = {
      reference: 'order-1',
      service: 'acme_ground',
      from_name: 'Ada Lovelace',
      from_line1: '1 Main Street',
      from_line2: '',
      from_city: 'London',
      from_postcode: 'N1 9GU',
      from_country: 'gb',
      to_name: 'Charles Babbage',
      to_line1: '"Flat 2, The Mill"',
      to_line2: 'Back Lane',
      to_city: 'Leeds',
      to_postcode: 'LS1 4AP',
      to_country: 'GB',
      weight_g: '1200',
      length_mm: '300',
      width_mm: '200',
      height_mm: '100',
      ...o,
    };
    return CSV_COLUMNS.map((c) => row[c]).join(',');
  };

  it('turns each line into a purchase body, in order, with the chosen label format', () => {
    const result = ordersFromCsv(`${header}\r\n${line()}\r\n${line({ reference: '', service: 'swiftpost_standard' })}\r\n`, 'pdf_a4');
    expect(result).toEqual({
      ok: true,
      body: {
        label_format: 'pdf_a4',
        shipments: [
          {
            reference: 'order-1',
            service: 'acme_ground',
            from: { name: 'Ada Lovelace', line1: '1 Main Street', city: 'London', postcode: 'N1 9GU', country: 'GB' },
            to: { name: 'Charles Babbage', line1: 'Flat 2, The Mill', line2: 'Back Lane', city: 'Leeds', postcode: 'LS1 4AP', country: 'GB' },
            parcel: { weight_g: 1200, length_mm: 300, width_mm: 200, height_mm: 100 },
          },
          {
            service: 'swiftpost_standard',
            from: { name: 'Ada Lovelace', line1: '1 Main Street', city: 'London', postcode: 'N1 9GU', country: 'GB' },
            to: { name: 'Charles Babbage', line1: 'Flat 2, The Mill', line2: 'Back Lane', city: 'Leeds', postcode: 'LS1 4AP', country: 'GB' },
            parcel: { weight_g: 1200, length_mm: 300, width_mm: 200, height_mm: 100 },
          },
        ],
      },
    });
  });

  it('names the line and the column of every field the API would refuse', () => {
    const result = ordersFromCsv([header, line(), line({ weight_g: '1.5kg', to_city: '' }), line(), line({ from_country: 'XX' })].join('\n'), 'pdf_6x4');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      { line: 3, column: 'to_city', message: 'is required' },
      { line: 3, column: 'weight_g', message: 'must be integer' },
      { line: 5, column: 'from_country', message: expect.stringMatching(/country/) },
    ]);
  });

  it('takes the optional trailing from_state,to_state columns for US and Canadian addresses; a misnamed or misplaced extra column is refused', () => {
    const withStates = `${header},${CSV_STATE_COLUMNS.join(',')}`;
    const us = line({ from_city: 'New York', from_postcode: '10118', from_country: 'US', to_city: 'Toronto', to_postcode: 'M5V 2T6', to_country: 'CA' });
    const result = ordersFromCsv(`${withStates}\n${us},NY,ON\n${line()},,\n`, 'pdf_6x4');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.body.shipments[0].from).toMatchObject({ city: 'New York', state: 'NY', country: 'US' });
    expect(result.body.shipments[0].to).toMatchObject({ city: 'Toronto', state: 'ON', country: 'CA' });
    // Empty state cells are left out, as other empty optional cells are.
    expect(result.body.shipments[1].from).not.toHaveProperty('state');
    expect(result.body.shipments[1].to).not.toHaveProperty('state');
    // With the state columns every line has 20 fields.
    expect(ordersFromCsv(`${withStates}\n${line()}`, 'pdf_6x4')).toEqual({
      ok: false,
      problems: [{ line: 2, message: "has 18 fields; every line has 20, in the header's order" }],
    });
    // Any other header is refused as before: a misnamed column, one of the two alone, or out of order.
    for (const bad of [`${header},from_state,to_province`, `${header},to_state`, `${header},to_state,from_state`, `from_state,to_state,${header}`, `${header},from_state,to_state,notes`]) {
      expect(ordersFromCsv(`${bad}\n${line()},NY,NY`, 'pdf_6x4'), bad).toMatchObject({ ok: false, problems: [{ line: 1, message: expect.stringContaining(header) }] });
    }
    // A state the API refuses is named by its column.
    const badState = ordersFromCsv(`${withStates}\n${us},NY,TOOLONG`, 'pdf_6x4');
    expect(badState).toMatchObject({ ok: false, problems: [{ line: 2, column: 'to_state' }] });
  });

  it('refuses a file without the header line, without orders, or with a line of the wrong width', () => {
    expect(ordersFromCsv(line(), 'pdf_6x4')).toMatchObject({ ok: false, problems: [{ line: 1, message: expect.stringContaining(header) }] });
    expect(ordersFromCsv(`${header}\n`, 'pdf_6x4')).toMatchObject({ ok: false, problems: [{ line: 2, message: expect.stringContaining('no orders') }] });
    expect(ordersFromCsv(`${header}\n${line()}\n${line()},extra`, 'pdf_6x4')).toEqual({
      ok: false,
      problems: [{ line: 3, message: 'has 19 fields; every line has 18, in the header\'s order' }],
    });
    expect(ordersFromCsv(`${header}\n${line()}\n"unclosed`, 'pdf_6x4')).toMatchObject({ ok: false, problems: [{ line: 3 }] });
    expect(ordersFromCsv(`${header}\n${line()}`, 'gif')).toMatchObject({ ok: false, problems: [{ line: 0, column: 'label_format' }] });
    const many = [header, ...Array.from({ length: 1001 }, () => line())].join('\n');
    expect(ordersFromCsv(many, 'pdf_6x4')).toMatchObject({ ok: false, problems: [{ line: 1002, message: expect.stringContaining('at most 1,000') }] });
    // A file of a million lines is refused at its 1,001st order, read no further.
    const started = performance.now();
    const million = `${header}\n${'x\n'.repeat(1_000_000)}`;
    expect(ordersFromCsv(million, 'pdf_6x4')).toMatchObject({ ok: false, problems: [{ line: 1002, message: expect.stringContaining('at most 1,000') }] });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
