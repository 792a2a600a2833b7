/**
 * CSV as RFC 4180 writes it, and as spreadsheets save it: fields separated by commas, records by
 * CRLF or LF (a lone CR too, as old spreadsheet exports end lines), a field in double quotes may hold
 * commas, line breaks and doubled quotes (`""`). A UTF-8 byte order mark before the first field is
 * dropped. Each record keeps the line it starts on, so an error can name the line a person sees in
 * their editor.
 */
export interface CsvRecord {
  /** The 1-based line the record starts on. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`Line ${line}: ${message}`);
  }
}

/** Every record of the text; blank lines (nothing between two line breaks) are not records. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let fields: string[] = [];
  let start = line;
  let field = '';
  // Whether the record has anything yet: a line with no characters at all is blank, not one empty field.
  let started = false;
  const endRecord = () => {
    if (started) records.push({ line: start, fields: [...fields, field] });
    fields = [];
    field = '';
    started = false;
  };
  while (i < text.length) {
    const c = text[i];
    if (!started) start = line;
    if (c === '"' && field === '') {
      // A quoted field (a quote can only open a field: text before it makes it the next branch's error): up to the quote that is not doubled.
      started = true;
      const opened = line;
      i++;
      for (;;) {
        if (i >= text.length) throw new CsvError(opened, 'a quoted field is not closed (a " is missing)');
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === '\r' && text[i + 1] === '\n') {
          field += '\r\n';
          i += 2;
          line++;
          continue;
        }
        if (q === '\n' || q === '\r') line++;
        field += q;
        i++;
      }
      // After the closing quote: a separator, a line break or the end.
      const next = text[i];
      if (i < text.length && next !== ',' && next !== '\n' && next !== '\r') {
        throw new CsvError(line, 'text follows a closing quote; a quote inside a quoted field is written twice ("")');
      }
      continue;
    }
    if (c === ',') {
      started = true;
      fields.push(field);
      field = '';
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') {
      endRecord();
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      continue;
    }
    if (c === '"') throw new CsvError(line, 'a quote inside an unquoted field; put the field in quotes and write the quote twice ("")');
    started = true;
    field += c;
    i++;
  }
  endRecord();
  return records;
}
