/** The header row of the console's data tables: one column header per title, in one style. */
export function ColumnHeads({ titles }: { titles: readonly string[] }) {
  return (
    <thead className="border-b border-line text-xs uppercase tracking-wide text-muted">
      <tr>
        {titles.map((title) => (
          <th key={title} scope="col" className="py-2 pr-4 font-medium whitespace-nowrap">
            {title}
          </th>
        ))}
      </tr>
    </thead>
  );
}
