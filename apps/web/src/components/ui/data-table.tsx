import { type ReactNode, useId } from "react";
import { ColumnHeads } from "./column-heads";

const textSize = { sm: "text-sm", xs: "text-xs" } as const;
const FRAMED = "relative overflow-x-auto rounded-lg border border-line bg-surface";

/**
 * On narrow screens (globals.css, `table[data-stack]`) a row becomes a stacked card and each cell
 * shows its column's title before it. The titles come from here, as nth-child rules scoped to this
 * table, so cells need no label of their own and the page renders them on the server as it is.
 */
export function stackedLabels(
  scope: string,
  titles: readonly string[],
  hidden: readonly string[] = [],
): string {
  // Spacer rows (aria-hidden, a virtual table's) carry no labels.
  const rules = titles.flatMap((title, i) =>
    hidden.includes(title)
      ? []
      : [
          `[data-stack="${scope}"] tr:not([aria-hidden]) > :nth-child(${i + 1})::before{content:${JSON.stringify(title)}}`,
        ],
  );
  return `@media (width < 40rem){${rules.join("")}}`;
}

/**
 * A console data table: a frame that scrolls sideways on wide-but-cramped screens, one header row
 * (the column titles, or `head` where a table styles its own), and `children` as the body rows.
 * Below 40rem its rows stack, labelled with `titles` (pass them with `head` too; `srOnly` ones, an
 * actions column, stay unlabelled). The frame is positioned so a visually hidden column title
 * (absolute) scrolls with the table instead of widening the page. A `framed` table stands on the
 * page by itself rather than in a card: its frame is a bordered surface, and its header cells are
 * padded on both sides like the rows' (`px-4`).
 */
export function DataTable({
  label,
  titles,
  srOnly = [],
  head,
  framed = false,
  frameClassName = framed ? FRAMED : "relative overflow-x-auto",
  size = "sm",
  children,
}: {
  label: string;
  titles?: readonly string[];
  srOnly?: readonly string[];
  head?: ReactNode;
  framed?: boolean;
  frameClassName?: string;
  size?: keyof typeof textSize;
  children: ReactNode;
}) {
  const scope = useId();
  return (
    <div className={frameClassName}>
      {titles ? <style>{stackedLabels(scope, titles, srOnly)}</style> : null}
      <table aria-label={label} data-stack={scope} className={`w-full text-left ${textSize[size]}`}>
        {head ?? (
          <ColumnHeads titles={titles ?? []} srOnly={srOnly} cellPadding={framed ? "px-4 py-2" : undefined} />
        )}
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A body row whose first cell names it (`<th scope="row">`, what screen readers announce with each
 * cell): the console tables' one row style. `top` aligns tall cells to the row's top.
 */
export function DataRow({
  head,
  headClassName = "font-medium",
  top = false,
  children,
}: {
  head: ReactNode;
  headClassName?: string;
  top?: boolean;
  children: ReactNode;
}) {
  return (
    <tr className={`border-b border-line last:border-0${top ? " align-top" : ""}`}>
      <th scope="row" className={`py-2 pr-4 ${headClassName}`}>
        {head}
      </th>
      {children}
    </tr>
  );
}
