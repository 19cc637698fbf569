/**
 * The one CSV writer of every export (the audit trail and erasure evidence on the server, the
 * console's record download in the browser), so every cell is escaped one way. Browser-safe.
 */

/**
 * Cells a spreadsheet would run as a formula (`=`, `+`, `-`, `@`) or that start with a tab or
 * carriage return, which some spreadsheets strip before looking for those: OWASP's CSV injection
 * advice is to prefix them with a single quote, so the cell is shown as the text it is.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A value as one CSV cell: text as is (formula starts defused), objects as JSON, null as empty. */
export function csvCell(value: unknown): string {
  const raw =
    value === null || value === undefined
      ? ""
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
  // Numbers and booleans are ours (offsets, counts); any text may come from a tenant's data.
  const text = typeof value === "string" && FORMULA_START.test(raw) ? `'${raw}` : raw;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** RFC 4180: a header row, CRLF line ends, cells quoted when they hold a comma, quote or newline. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.join(","), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(","))];
  return `${lines.join("\r\n")}\r\n`;
}
