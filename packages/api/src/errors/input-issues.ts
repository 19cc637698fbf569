/** A zod issue as the error translations read it (no zod import: any validator's shape fits). */
export interface InputIssue {
  path: PropertyKey[];
  message: string;
}

/** `topics[0].name`-style path of an issue; empty for the input as a whole. */
export function issuePath(path: PropertyKey[]): string {
  return path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
}

/** The one-line detail of an INVALID_INPUT refusal: the first issue, prefixed with where it is. */
export function inputDetail(issues: readonly InputIssue[]): string {
  const first = issues[0];
  return first ? `${issuePath(first.path) || "input"}: ${first.message}` : "The input is invalid.";
}
