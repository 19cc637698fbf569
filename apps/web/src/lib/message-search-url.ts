import type { RegexTarget, SearchForm } from "@/components/topic/message-search-input";

/**
 * The message browser's search in the page's URL, so a search can be linked and a reload runs it
 * again: every field the member set, under short names, and nothing for a field left at its
 * default. Times travel as epoch milliseconds (a datetime-local text is the reader's local time,
 * which differs between the one who links and the one who opens the link).
 */
export const SEARCH_PARAMS = [
  "partition",
  "from",
  "offsets",
  "since",
  "until",
  "key",
  "value",
  "header",
  "headerValue",
  "jsonPath",
  "jsonEquals",
  "regex",
  "regexOn",
  "js",
  "limit",
  "scan",
] as const;

const TEXT_FIELDS = [
  ["key", "key"],
  ["value", "value"],
  ["header", "headerKey"],
  ["headerValue", "headerValue"],
  ["jsonPath", "jsonPath"],
  ["jsonEquals", "jsonEquals"],
  ["regex", "regex"],
  ["js", "javascript"],
] as const satisfies readonly (readonly [string, keyof SearchForm])[];

const FROM = ["earliest", "latest", "offset", "timestamp"] as const;
const REGEX_ON: readonly RegexTarget[] = ["any", "key", "value", "headers"];

/** A datetime-local text (seconds) for an instant, in the reader's time zone. */
export function localInputTime(ms: number): string {
  const at = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}

function epochOf(text: string): string | null {
  const at = new Date(text).getTime();
  return Number.isFinite(at) ? String(at) : null;
}

/** The form's parameters, written over `params` (the others, such as `tab`, kept). */
export function writeSearchParams(params: URLSearchParams, form: SearchForm, defaults: SearchForm): void {
  for (const name of SEARCH_PARAMS) params.delete(name);
  if (form.partition !== defaults.partition) params.set("partition", String(form.partition));
  if (form.from !== defaults.from) params.set("from", form.from);
  if (form.from === "offset") {
    const pairs = Object.entries(form.offsets).filter(([, text]) => text.trim() !== "");
    if (pairs.length > 0) params.set("offsets", pairs.map(([p, text]) => `${p}:${text.trim()}`).join(","));
  }
  const since = form.from === "timestamp" ? epochOf(form.fromTime) : null;
  if (since !== null) params.set("since", since);
  const until = epochOf(form.untilTime);
  if (form.untilTime !== "" && until !== null) params.set("until", until);
  for (const [param, field] of TEXT_FIELDS) if (form[field] !== "") params.set(param, form[field]);
  if (form.regex !== "" && form.regexOn !== defaults.regexOn) params.set("regexOn", form.regexOn);
  if (form.limit !== defaults.limit) params.set("limit", String(form.limit));
  if (form.scanLimit !== defaults.scanLimit) params.set("scan", String(form.scanLimit));
}

const wholeNumber = (text: string | null): number | null =>
  text !== null && /^\d+$/.test(text) ? Number(text) : null;

/**
 * The form a URL describes, over `defaults`; a parameter that does not parse keeps its default (a
 * hand-edited link still opens a search, the form showing what it ran).
 */
export function readSearchParams(params: URLSearchParams, defaults: SearchForm): SearchForm {
  const form: SearchForm = { ...defaults, offsets: {} };
  const partition = params.get("partition");
  form.partition = partition === "all" ? "all" : (wholeNumber(partition) ?? defaults.partition);
  form.from = FROM.find((from) => from === params.get("from")) ?? defaults.from;
  for (const pair of (params.get("offsets") ?? "").split(",")) {
    const [p, offset] = pair.split(":");
    if (wholeNumber(p ?? null) !== null && wholeNumber(offset ?? null) !== null)
      form.offsets[Number(p)] = offset!;
  }
  const since = wholeNumber(params.get("since"));
  if (since !== null) form.fromTime = localInputTime(since);
  const until = wholeNumber(params.get("until"));
  if (until !== null) form.untilTime = localInputTime(until);
  for (const [param, field] of TEXT_FIELDS) form[field] = params.get(param) ?? defaults[field];
  form.regexOn = REGEX_ON.find((on) => on === params.get("regexOn")) ?? defaults.regexOn;
  form.limit = wholeNumber(params.get("limit")) ?? defaults.limit;
  form.scanLimit = wholeNumber(params.get("scan")) ?? defaults.scanLimit;
  return form;
}

/** Whether the URL carries a search (else the browser opens on the latest records). */
export function hasSearchParams(params: URLSearchParams): boolean {
  return SEARCH_PARAMS.some((name) => params.has(name));
}
