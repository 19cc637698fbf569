import { AppError } from "../errors/app-error";
import { isStorableText } from "./stored-text.schema";

/**
 * Opaque list cursors: the sort key of the last item returned, tagged with the list it belongs to,
 * base64url-encoded. Clients pass them back unchanged; a cursor of another list is refused.
 */
export function encodeCursor(list: string, parts: readonly string[]): string {
  return Buffer.from(JSON.stringify([list, ...parts])).toString("base64url");
}

export function decodeCursor(list: string, cursor: string, arity: number): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) ||
    parsed[0] !== list ||
    parsed.length !== arity + 1 ||
    // A forged cursor's parts go to Postgres: one holding NUL would fail there, not here.
    !parsed.every((p) => typeof p === "string" && isStorableText(p))
  ) {
    throw new AppError("INVALID_INPUT", "The cursor is not one this list issued.");
  }
  return parsed.slice(1) as string[];
}

/** Keyset condition for lists sorted by (createdAt desc, id desc). */
export function beforeCursor(list: string, cursor: string | undefined, field = "createdAt") {
  if (!cursor) return {};
  const [at, id] = decodeCursor(list, cursor, 2) as [string, string];
  const date = new Date(at);
  if (Number.isNaN(date.getTime()))
    throw new AppError("INVALID_INPUT", "The cursor is not one this list issued.");
  return { OR: [{ [field]: { lt: date } }, { [field]: date, id: { lt: id } }] };
}
