import { CsvError, parse } from 'csv-parse/sync';

/**
 * CSV as RFC 4180 writes it and as spreadsheets save it, read by csv-parse: fields separated by
 * commas, records by CRLF or LF (a lone CR too, as old spreadsheet exports end lines), a quoted field
 * may hold commas, line breaks and doubled quotes (`""`); a UTF-8 byte order mark is dropped and
 * blank lines are not records. Each record keeps the line it starts on, so a problem can name the
 * line a person sees in their editor.
 */
export interface CsvRecord {
  /** The 1-based line the record starts on. */
  line: number;
  fields: string[];
}

export type CsvRead = { ok: true; records: CsvRecord[] } | { ok: false; problem: { line: number; message: string } };

/** csv-parse's refusals, said for a person with a spreadsheet. */
const MESSAGES: Partial<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed (a " is missing)',
  CSV_INVALID_CLOSING_QUOTE: 'text follows a closing quote; a quote inside a quoted field is written twice ("")',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field; put the field in quotes and write the quote twice ("")',
};

/**
 * Lines of the file by byte offset, counted forward only (one pass over the file in all). The lines
 * are counted here, not by csv-parse: with several record delimiters it counts a CRLF inside a
 * quoted field as two lines.
 */
function lineCounter(content: Buffer) {
  let at = 0;
  let line = 1;
  return {
    /** The line of the first character at or after `offset` that is not a line break (blank lines are skipped). */
    startOf(offset: number): number {
      // The byte order mark is not a line's text either.
      let start = offset === 0 && content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : offset;
      while (content[start] === 0x0d || content[start] === 0x0a) start++;
      for (; at < start; at++) {
        const c = content[at];
        if (c === 0x0a || (c === 0x0d && content[at + 1] !== 0x0a)) line++;
      }
      return line;
    },
  };
}

class TooManyFields extends Error {}

/**
 * The records of the file, at most `maxRecords` of them (reading stops there: a file of a million
 * one-character lines costs no more than one of `maxRecords`), or the first problem that stops it
 * being read; a problem names the line its record starts on. A record of more than `maxFields`
 * fields is such a problem, found at that field (a line of two million commas is not read whole).
 */
export function readCsv(content: Buffer, o: { maxRecords: number; maxFields: number }): CsvRead {
  // Where each record ends (the byte after its line break): the next one starts there, after any blank lines.
  const ends: number[] = [];
  let rows: string[][];
  try {
    rows = parse(content, {
      bom: true,
      skip_empty_lines: true,
      // A line with too few or too many fields is named by ordersFromCsv, with every other problem.
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      to: o.maxRecords,
      cast: (value: string, context) => {
        if (context.index >= o.maxFields) throw new TooManyFields();
        return value;
      },
      on_record: (record: string[], context) => {
        ends.push(context.bytes);
        return record;
      },
    });
  } catch (err) {
    const line = () => lineCounter(content).startOf(ends.at(-1) ?? 0);
    if (err instanceof TooManyFields) return { ok: false, problem: { line: line(), message: `has more than ${o.maxFields} fields; every line has the header's` } };
    if (!(err instanceof CsvError)) throw err;
    return { ok: false, problem: { line: line(), message: MESSAGES[err.code] ?? err.message } };
  }
  const lines = lineCounter(content);
  return { ok: true, records: rows.map((fields, i) => ({ line: lines.startOf(i === 0 ? 0 : ends[i - 1]), fields })) };
}
