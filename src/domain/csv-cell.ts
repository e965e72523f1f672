/**
 * One CSV cell of an export, RFC 4180 quoting, defused against formula injection as OWASP
 * recommends (the one function every export uses; issue 37 found the conversions CSV writing
 * `x;=1+1` as it was while the import export defused it). A spreadsheet starts a cell at the
 * start of the field and, when it splits on them, after a comma, semicolon, tab or line break:
 * wherever one of `= + - @` (or a tab or carriage return) would start a cell there, a `'` is put
 * in front, and such a cell is quoted. Numbers are data: `-89.6` stays as it is.
 */
const FORMULA_START = /(^|[,;\t\r\n])(?=[=+\-@\t\r])/g;

export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = value.replace(FORMULA_START, "$1'");
  return /[",;\t\r\n']/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
