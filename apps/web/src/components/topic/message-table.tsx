"use client";

import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  type SortingState,
  useReactTable,
} from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef } from "react";
import type { BrowsedRecord } from "@/lib/record-export";
import { describeGap, gapsBetween } from "@/lib/record-gaps";
import { envelopeText, RecordText } from "./record-text";

export type MessageOrder = "timestamp" | "offset";

const timeFormat = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "medium" });

/** The sort each order means: ties broken by partition, then offset, so the list is stable. */
const SORTS: Record<MessageOrder, SortingState> = {
  timestamp: [
    { id: "timestamp", desc: false },
    { id: "partition", desc: false },
    { id: "offset", desc: false },
  ],
  offset: [
    { id: "offset", desc: false },
    { id: "partition", desc: false },
  ],
};

export const recordId = (r: BrowsedRecord) => `${r.partition}:${r.offset}`;

/**
 * The message browser's rows: TanStack Table for the columns and sorting, TanStack Virtual so only
 * the rows in view are in the DOM (a tail can hold thousands). Rows are measured as drawn, since a
 * pretty-printed or expanded value is taller than one line.
 */
export function MessageTable(props: {
  records: readonly BrowsedRecord[];
  order: MessageOrder;
  pretty: boolean;
  expanded: ReadonlySet<string>;
  onExpand: (id: string) => void;
  /** Keep the newest row in view (a live tail). */
  follow: boolean;
  /** Mark offsets missing between records (an unfiltered scan: what is missing was compacted away). */
  showGaps: boolean;
  /** Where each partition's scan started, for a gap before its first record. */
  starts?: ReadonlyMap<number, number>;
}) {
  const { pretty, expanded, onExpand } = props;
  const gaps = useMemo(
    () => (props.showGaps ? gapsBetween(props.records, props.starts) : new Map<string, never>()),
    [props.showGaps, props.records, props.starts],
  );
  const columns = useMemo<ColumnDef<BrowsedRecord>[]>(() => {
    // Key and value cells expand one at a time, each under its own id.
    const envelopeColumn = (part: "key" | "value", header: string): ColumnDef<BrowsedRecord> => ({
      id: part,
      header,
      cell: (c) => {
        const id = `${recordId(c.row.original)}:${part}`;
        return (
          <RecordText
            envelope={c.row.original[part]}
            part={part}
            pretty={pretty}
            expanded={expanded.has(id)}
            onExpand={() => onExpand(id)}
          />
        );
      },
    });
    return [
      { id: "partition", accessorKey: "partition", header: "Partition" },
      {
        id: "offset",
        accessorKey: "offset",
        header: "Offset",
        cell: (c) => {
          const gap = gaps.get(recordId(c.row.original));
          return (
            <span className="flex flex-col">
              {c.row.original.offset}
              {gap ? <span className="text-xs font-normal text-muted italic">{describeGap(gap)}</span> : null}
            </span>
          );
        },
      },
      {
        id: "timestamp",
        accessorKey: "timestamp",
        header: "Timestamp",
        cell: (c) => timeFormat.format(new Date(c.row.original.timestamp)),
      },
      envelopeColumn("key", "Key"),
      envelopeColumn("value", "Value"),
      {
        id: "headers",
        header: "Headers",
        cell: (c) =>
          c.row.original.headers.length === 0 ? (
            <span className="text-muted">—</span>
          ) : (
            <span className="font-mono text-xs whitespace-pre">
              {c.row.original.headers
                .map((h) => `${h.key}: ${h.value === null ? "null" : envelopeText(h.value, false)}`)
                .join("\n")}
            </span>
          ),
      },
    ];
  }, [pretty, expanded, onExpand, gaps]);
  const table = useReactTable({
    data: props.records as BrowsedRecord[],
    columns,
    state: { sorting: SORTS[props.order] },
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: recordId,
  });
  const rows = table.getRowModel().rows;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 44,
    overscan: 12,
    getItemKey: (index) => rows[index]?.id ?? index,
  });
  useEffect(() => {
    if (props.follow && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
  }, [props.follow, rows.length, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  return (
    <div ref={scroller} className="max-h-[70vh] overflow-auto rounded-md border border-line">
      <table aria-label="Messages" aria-rowcount={rows.length + 1} className="w-full text-left text-sm">
        <thead className="sticky top-0 z-10 bg-surface">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} className="border-b border-line">
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  className="px-3 py-2 text-xs font-medium text-muted uppercase"
                >
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {before > 0 ? (
            <tr>
              <td colSpan={6} style={{ height: before }} />
            </tr>
          ) : null}
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
                {row.getVisibleCells().map((cell) =>
                  cell.column.id === "offset" ? (
                    <th key={cell.id} scope="row" className="px-3 py-2 font-mono tabular-nums">
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </th>
                  ) : (
                    <td
                      key={cell.id}
                      className={`px-3 py-2 ${cell.column.id === "timestamp" ? "text-xs whitespace-nowrap text-muted" : ""} ${cell.column.id === "partition" ? "tabular-nums" : ""}`}
                    >
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  ),
                )}
              </tr>
            );
          })}
          {after > 0 ? (
            <tr>
              <td colSpan={6} style={{ height: after }} />
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
