/**
 * Rows as one array per column, in `columns` order: the parameters of a Postgres
 * `unnest($n::type[], …)` that writes every row in one statement. The manifest's inserts pass
 * their rows this way; the column list beside the SQL's keeps the two in the same order.
 */
export function unnestColumns<Row, Column extends keyof Row>(
  rows: readonly Row[],
  columns: readonly Column[],
): Row[Column][][] {
  return columns.map((column) => rows.map((row) => row[column]));
}
