"use client";

import { flexRender, type Table } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useId, useRef } from "react";
import { stackedLabels } from "./data-table";

const SORT_NAMES = { asc: "ascending", desc: "descending" } as const;

/**
 * A TanStack table whose body only holds the rows in view (TanStack Virtual), so thousands of rows
 * scroll smoothly: the caller owns the table (columns, sorting, row ids) and this draws it. For
 * assistive tech the table keeps its full size (`aria-rowcount`, each row's `aria-rowindex`), the
 * headers of a `sortable` table are buttons (with `aria-sort` on the header), one column's
 * cells are row headers, and the scrolling frame is focusable so arrow keys scroll it. Rows are
 * measured as drawn (a cell may wrap). With `stacked`, rows below 40rem stack as a DataTable's do,
 * each cell under its column's header text.
 */
export function VirtualTable<Row>({
  table,
  label,
  rowHeader,
  cellClassName = () => "",
  estimateRowPx = 44,
  frameClassName = "max-h-[70vh]",
  follow = false,
  stacked = false,
  sortable = false,
}: {
  table: Table<Row>;
  label: string;
  /** The column whose cells name their row (`<th scope="row">`). */
  rowHeader: string;
  cellClassName?: (columnId: string) => string;
  estimateRowPx?: number;
  frameClassName?: string;
  /** Keep the last row in view (a live tail). */
  follow?: boolean;
  stacked?: boolean;
  /** Column headers sort the rows (a click toggles the column's `getToggleSortingHandler`). */
  sortable?: boolean;
}) {
  const scope = useId();
  const rows = table.getRowModel().rows;
  const columns = table.getVisibleLeafColumns();
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimateRowPx,
    overscan: 12,
    getItemKey: (index) => rows[index]?.id ?? index,
  });
  useEffect(() => {
    if (follow && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
  }, [follow, rows.length, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const spacer = (height: number) =>
    height > 0 ? (
      <tr aria-hidden>
        <td colSpan={columns.length} style={{ height }} />
      </tr>
    ) : null;
  const titles = columns.map((column) => {
    const header = column.columnDef.header;
    return typeof header === "string" ? header : column.id;
  });
  return (
    <div
      ref={scroller}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling frame must take focus, or keyboard users cannot scroll it.
      tabIndex={0}
      className={`${frameClassName} overflow-auto rounded-md border border-line`}
    >
      {stacked ? <style>{stackedLabels(scope, titles)}</style> : null}
      <table
        aria-label={label}
        aria-rowcount={rows.length + 1}
        data-stack={stacked ? scope : undefined}
        className="w-full text-left text-sm"
      >
        <thead className="sticky top-0 z-10 bg-surface">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1} className="border-b border-line">
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const title = flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={sorted ? SORT_NAMES[sorted] : undefined}
                    className="px-3 py-2 text-xs font-medium whitespace-nowrap text-muted uppercase"
                  >
                    {sortable && header.column.getCanSort() ? (
                      <button
                        type="button"
                        onClick={header.column.getToggleSortingHandler()}
                        className="inline-flex items-center gap-1 uppercase hover:text-ink"
                      >
                        {title}
                        <span aria-hidden>{sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}</span>
                      </button>
                    ) : (
                      title
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {spacer(before)}
          {items.map((item) => {
            const row = rows[item.index]!;
            return (
              <tr
                key={row.id}
                data-index={item.index}
                ref={virtualizer.measureElement}
                aria-rowindex={item.index + 2}
                className="border-b border-line align-top"
              >
                {row.getVisibleCells().map((cell) => {
                  const className = `px-3 py-2 ${cellClassName(cell.column.id)}`;
                  const content = flexRender(cell.column.columnDef.cell, cell.getContext());
                  return cell.column.id === rowHeader ? (
                    <th key={cell.id} scope="row" className={className}>
                      {content}
                    </th>
                  ) : (
                    <td key={cell.id} className={className}>
                      {content}
                    </td>
                  );
                })}
              </tr>
            );
          })}
          {spacer(after)}
        </tbody>
      </table>
    </div>
  );
}
