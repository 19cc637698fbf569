/**
 * The header row of the console's data tables: one column header per title, in one style.
 * `srOnly` titles are announced but not shown (an actions column); `cellPadding` matches tables
 * whose cells are padded on both sides.
 */
export function ColumnHeads({
  titles,
  srOnly = [],
  cellPadding = "py-2 pr-4",
}: {
  titles: readonly string[];
  srOnly?: readonly string[];
  cellPadding?: string;
}) {
  return (
    <thead className="border-b border-line text-xs uppercase tracking-wide text-muted">
      <tr>
        {titles.map((title) => (
          <th key={title} scope="col" className={`${cellPadding} font-medium whitespace-nowrap`}>
            {srOnly.includes(title) ? <span className="sr-only">{title}</span> : title}
          </th>
        ))}
      </tr>
    </thead>
  );
}
