import {
  type ColumnDef,
  getCoreRowModel,
  getSortedRowModel,
  type SortingState,
  type Table,
  useReactTable,
} from "@tanstack/react-table";
import { useState } from "react";

type SortedTableOptions<Row> = {
  data: Row[];
  columns: ColumnDef<Row>[];
  /** A stable id per row, so a re-sorted or refreshed row keeps its DOM node (and focus). */
  getRowId: (row: Row) => string;
} & (
  | { /** The caller owns the order (the message browser's oldest/newest choice). */ sorting: SortingState }
  | {
      /** Where the order starts; the sortable column heads change it from there. */ initialSorting: SortingState;
    }
);

/**
 * A TanStack table sorted by its columns, for VirtualTable to draw. The console's tables set it up
 * the same way (core and sorted row models, row ids, sorting state), so it has one home here.
 */
export function useSortedTable<Row>(options: SortedTableOptions<Row>): Table<Row> {
  const [chosen, setChosen] = useState<SortingState>(
    "initialSorting" in options ? options.initialSorting : [],
  );
  const owned = "sorting" in options;
  return useReactTable({
    data: options.data,
    columns: options.columns,
    state: { sorting: owned ? options.sorting : chosen },
    ...(owned ? {} : { onSortingChange: setChosen }),
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: options.getRowId,
  });
}
