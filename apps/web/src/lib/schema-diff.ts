import { diffLines } from "diff";

/** One line of a side-by-side diff: its text on each side (null where that side has no line). */
export interface DiffRow {
  left: string | null;
  right: string | null;
  change: "same" | "removed" | "added" | "changed";
}

/** A schema laid out one field a line: JSON documents indented, Protobuf text as it is. */
export function schemaLines(schema: string, schemaType: string): string {
  if (schemaType === "PROTOBUF") return schema.trim();
  try {
    return JSON.stringify(JSON.parse(schema), null, 2);
  } catch {
    return schema;
  }
}

/** Two versions side by side, through jsdiff's line diff: removed lines face the lines that replaced them. */
export function sideBySide(left: string, right: string): DiffRow[] {
  const rows: DiffRow[] = [];
  const parts = diffLines(left, right);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const lines = part.value.replace(/\n$/, "").split("\n");
    if (!part.added && !part.removed) {
      for (const line of lines) rows.push({ left: line, right: line, change: "same" });
    } else if (part.removed && parts[i + 1]?.added) {
      const next = parts[++i]!.value.replace(/\n$/, "").split("\n");
      for (let j = 0; j < Math.max(lines.length, next.length); j++) {
        rows.push({ left: lines[j] ?? null, right: next[j] ?? null, change: "changed" });
      }
    } else if (part.removed) {
      for (const line of lines) rows.push({ left: line, right: null, change: "removed" });
    } else {
      for (const line of lines) rows.push({ left: null, right: line, change: "added" });
    }
  }
  return rows;
}
