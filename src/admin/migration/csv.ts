/**
 * The CSV that H2's `CSVWRITE` writes (both 1.4.200 and 2.x): a header line, fields separated by
 * `,`, every non-NULL value between double quotes (a quote inside doubled), NULL as an unquoted
 * empty field, line breaks inside quoted values kept. We keep the quoted/unquoted distinction so
 * that NULL and the empty string stay apart (RULES columns are nullable).
 */

/** One record: column name (upper case, as H2 writes it) -> text, or null for SQL NULL. */
export type CsvRecord = Record<string, string | null>;

export class CsvFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CsvFormatError';
  }
}

/** Splits CSV text into rows of fields (null = an unquoted empty field). */
export function parseCsvFields(text: string): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let row: (string | null)[] = [];
  let i = 0;
  const n = text.length;
  if (n === 0) return rows;
  for (;;) {
    let value: string | null;
    if (text[i] === '"') {
      // Quoted field: up to the next lone quote.
      let out = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new CsvFormatError('unterminated quoted field');
        out += text.slice(i, q);
        if (text[q + 1] === '"') {
          out += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      value = out;
    } else {
      let j = i;
      while (j < n && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
      const raw = text.slice(i, j);
      value = raw === '' ? null : raw;
      i = j;
    }
    row.push(value);
    if (i >= n) {
      rows.push(row);
      return rows;
    }
    const c = text[i];
    if (c === ',') {
      i++;
      continue;
    }
    if (c === '\r' && text[i + 1] === '\n') i++;
    if (c !== '\n' && c !== '\r') throw new CsvFormatError(`unexpected character ${JSON.stringify(c)} after a quoted field`);
    i++;
    rows.push(row);
    row = [];
    if (i >= n) return rows;
  }
}

/** Records keyed by the header's column names (upper-cased). */
export function parseCsvRecords(text: string): CsvRecord[] {
  const [header, ...rows] = parseCsvFields(text);
  if (header === undefined) return [];
  const names = header.map((h) => (h ?? '').toUpperCase());
  return rows
    .filter((r) => !(r.length === 1 && r[0] === null)) // a trailing empty line
    .map((r) => {
      if (r.length !== names.length) throw new CsvFormatError(`a row has ${r.length} fields, the header ${names.length}`);
      const rec: CsvRecord = {};
      names.forEach((name, k) => {
        rec[name] = r[k] ?? null;
      });
      return rec;
    });
}
