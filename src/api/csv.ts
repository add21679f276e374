/**
 * RFC 4180 CSV: a header row, then one record per row, CRLF between records. A field holding a comma, a double
 * quote, CR or LF is enclosed in double quotes with its quotes doubled; null is the empty field.
 */

const field = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function toCsv(columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return [columns, ...rows].map((r) => `${r.map(field).join(',')}\r\n`).join('');
}
