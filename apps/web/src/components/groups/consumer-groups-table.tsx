import type { ColumnDef } from "@tanstack/react-table";
import { useSortedTable } from "../ui/sorted-table";
import { VirtualTable } from "../ui/virtual-table";

/**
 * Consumer groups as a sortable, stacking virtual table named by its "group" column and sorted by it
 * first. The groups page and a topic's consumer-groups card list groups alike (their columns
 * differ), so the table's frame and first order have one home here.
 */
export function ConsumerGroupsTable<Row>(props: {
  rows: Row[];
  columns: ColumnDef<Row>[];
  getRowId: (row: Row) => string;
  cellClassName: (columnId: string) => string;
}) {
  const table = useSortedTable({
    data: props.rows,
    columns: props.columns,
    initialSorting: [{ id: "group", desc: false }],
    getRowId: props.getRowId,
  });
  return (
    <VirtualTable
      table={table}
      label="Consumer groups"
      rowHeader="group"
      sortable
      stacked
      frameClassName="max-h-[60vh]"
      cellClassName={props.cellClassName}
    />
  );
}
