"use client";

import type { ColumnDef, SortingState } from "@tanstack/react-table";
import { useMemo } from "react";
import { shortDateTime } from "@/lib/date-time-formats";
import type { BrowsedRecord } from "@/lib/record-export";
import { describeGap, gapsBetween } from "@/lib/record-gaps";
import { useSortedTable } from "../ui/sorted-table";
import { VirtualTable } from "../ui/virtual-table";
import { envelopeText, RecordText } from "./record-text";
import { SchemaLabel } from "./schema-decoding";

export type MessageOrder = "timestamp" | "offset";

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

const CELL_CLASSES: Record<string, string> = {
  offset: "font-mono tabular-nums",
  partition: "tabular-nums",
  timestamp: "text-xs whitespace-nowrap text-muted",
};

export const recordId = (r: BrowsedRecord) => `${r.partition}:${r.offset}`;

/**
 * The message browser's rows: TanStack Table for the columns and sorting, drawn by VirtualTable so
 * only the rows in view are in the DOM (a tail can hold thousands; a pretty-printed or expanded
 * value makes its row taller, which the table measures). On a phone each row stacks into a card,
 * every cell under its column's name, so key and value are read without a sideways scroll.
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
  /** Opens a record in full (the record drawer). */
  onOpen: (record: BrowsedRecord) => void;
}) {
  const { pretty, expanded, onExpand, onOpen } = props;
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
          <>
            <RecordText
              envelope={c.row.original[part]}
              part={part}
              pretty={pretty}
              expanded={expanded.has(id)}
              onExpand={() => onExpand(id)}
            />
            <SchemaLabel note={c.row.original.schemas?.[part]} />
          </>
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
        cell: (c) => shortDateTime.format(new Date(c.row.original.timestamp)),
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
            <span className="font-mono text-xs whitespace-pre max-sm:whitespace-pre-wrap max-sm:[overflow-wrap:anywhere]">
              {c.row.original.headers
                .map((h) => `${h.key}: ${h.value === null ? "null" : envelopeText(h.value, false)}`)
                .join("\n")}
            </span>
          ),
      },
      {
        id: "open",
        header: "Record",
        cell: (c) => (
          <button
            type="button"
            onClick={() => onOpen(c.row.original)}
            aria-label={`Open the record at partition ${c.row.original.partition}, offset ${c.row.original.offset}`}
            className="text-xs font-medium text-accent underline underline-offset-2"
          >
            Open
          </button>
        ),
      },
    ];
  }, [pretty, expanded, onExpand, onOpen, gaps]);
  const table = useSortedTable({
    data: props.records as BrowsedRecord[],
    columns,
    sorting: SORTS[props.order],
    getRowId: recordId,
  });
  return (
    <VirtualTable
      table={table}
      label="Messages"
      rowHeader="offset"
      follow={props.follow}
      stacked
      cellClassName={(column) => CELL_CLASSES[column] ?? ""}
    />
  );
}
