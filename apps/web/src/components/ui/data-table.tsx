import type { ReactNode } from "react";
import { ColumnHeads } from "./column-heads";

const textSize = { sm: "text-sm", xs: "text-xs" } as const;

/**
 * A console data table: a frame that scrolls sideways on narrow screens, one header row (the
 * column titles, or `head` where a table styles its own), and `children` as the body rows. The
 * frame is positioned so a visually hidden column title (absolute) scrolls with the table instead
 * of widening the page.
 */
export function DataTable({
  label,
  titles,
  head,
  frameClassName = "relative overflow-x-auto",
  size = "sm",
  children,
}: {
  label: string;
  titles?: readonly string[];
  head?: ReactNode;
  frameClassName?: string;
  size?: keyof typeof textSize;
  children: ReactNode;
}) {
  return (
    <div className={frameClassName}>
      <table aria-label={label} className={`w-full text-left ${textSize[size]}`}>
        {head ?? <ColumnHeads titles={titles ?? []} />}
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
