import type { RouterInputs } from "@lastword/api";

export type SearchInput = RouterInputs["records"]["search"];

/** Records one request reads: small enough that progress shows every second or so. */
export const SCAN_PER_REQUEST = 10_000;

/** The message browser's form as typed (text fields as strings, checked by `searchInput`). */
export interface SearchForm {
  partition: "all" | number;
  from: "earliest" | "latest" | "offset" | "timestamp";
  /** Start offset per partition, as typed; an empty one starts at the log start. */
  offsets: Record<number, string>;
  fromTime: string;
  untilTime: string;
  key: string;
  value: string;
  headerKey: string;
  headerValue: string;
  jsonPath: string;
  jsonEquals: string;
  /** A regular expression over the parts `regexOn` names ("" for none). */
  regex: string;
  regexOn: RegexTarget;
  /** A JavaScript function body over `record` ("" for none), run in the server's sandbox. */
  javascript: string;
  limit: number;
  /** Records the whole search may read, over as many requests as that takes. */
  scanLimit: number;
}

/** The search the browser opens with: the latest records of every partition. */
export const EMPTY_SEARCH_FORM: SearchForm = {
  partition: "all",
  from: "latest",
  offsets: {},
  fromTime: "",
  untilTime: "",
  key: "",
  value: "",
  headerKey: "",
  headerValue: "",
  jsonPath: "",
  jsonEquals: "",
  regex: "",
  regexOn: "any",
  javascript: "",
  limit: 100,
  scanLimit: 10_000,
};

export type RegexTarget = "any" | "key" | "value" | "headers";

/** Where a regular expression looks, as records.search's `filter.regex.on` says it. */
const REGEX_PARTS: Record<RegexTarget, ("key" | "value" | "headers")[]> = {
  any: ["key", "value", "headers"],
  key: ["key"],
  value: ["value"],
  headers: ["headers"],
};

/** A regular expression the browser can compile (the server compiles it again; both use JS syntax). */
function regexProblem(pattern: string): string | null {
  try {
    new RegExp(pattern);
    return null;
  } catch (error) {
    return `The regular expression does not compile: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** datetime-local is the member's local time; Date parses it as such. */
function localTime(text: string): number | null {
  const at = new Date(text).getTime();
  return Number.isFinite(at) ? at : null;
}

const given = (text: string) => (text.trim() === "" ? undefined : text);

/** The form as a records.search input, or what to fix, in the member's terms. */
export function searchInput(topic: string, form: SearchForm): { input: SearchInput } | { error: string } {
  const partitions = form.partition === "all" ? undefined : [form.partition];
  let start: NonNullable<SearchInput["start"]>;
  if (form.from === "timestamp") {
    const at = localTime(form.fromTime);
    if (at === null) return { error: "Enter the date and time to start from." };
    start = { from: "timestamp", timestamp: Math.max(0, at) };
  } else if (form.from === "offset") {
    const offsets: { partition: number; offset: number }[] = [];
    for (const [partition, text] of Object.entries(form.offsets)) {
      if (text.trim() === "") continue;
      if (!/^\d+$/.test(text.trim())) {
        return { error: `The start offset of partition ${partition} must be a whole number, 0 or more.` };
      }
      if (partitions === undefined || partitions.includes(Number(partition))) {
        offsets.push({ partition: Number(partition), offset: Number(text.trim()) });
      }
    }
    start = offsets.length > 0 ? { from: "offsets", offsets } : { from: "earliest" };
  } else {
    start = { from: form.from };
  }
  let until: number | undefined;
  if (form.untilTime !== "") {
    const at = localTime(form.untilTime);
    if (at === null) return { error: "The until time is not a date and time." };
    if (start.from === "timestamp" && at < start.timestamp) {
      return { error: "The until time is before the start time: no message could be in that range." };
    }
    until = at;
  }
  const headerValue = given(form.headerValue);
  if (headerValue !== undefined && given(form.headerKey) === undefined) {
    return { error: "Name the header whose value should contain that text." };
  }
  const jsonEquals = given(form.jsonEquals);
  const jsonPath = given(form.jsonPath);
  if (jsonEquals !== undefined && jsonPath === undefined) {
    return { error: "Enter the JSON path whose value should equal that text, e.g. $.customer.id." };
  }
  if (jsonPath !== undefined && !jsonPath.trim().startsWith("$")) {
    return { error: "A JSON path starts at the value's root, $ (e.g. $.customer.id)." };
  }
  const headerKey = given(form.headerKey);
  const key = given(form.key);
  const value = given(form.value);
  const regex = given(form.regex);
  if (regex !== undefined) {
    const problem = regexProblem(regex);
    if (problem) return { error: problem };
  }
  const javascript = given(form.javascript);
  const filter = {
    ...(regex !== undefined ? { regex: { pattern: regex, on: REGEX_PARTS[form.regexOn] } } : {}),
    ...(javascript !== undefined ? { javascript } : {}),
  };
  return {
    input: {
      topic,
      start,
      limit: form.limit,
      // One request's share: the results hook reads on, request by request, up to form.scanLimit.
      scanLimit: Math.min(form.scanLimit, SCAN_PER_REQUEST),
      ...(partitions ? { partitions } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(key ? { key } : {}),
      ...(value ? { value } : {}),
      ...(headerKey ? { header: { key: headerKey, ...(headerValue ? { value: headerValue } : {}) } } : {}),
      ...(jsonPath
        ? { jsonPath: { path: jsonPath.trim(), ...(jsonEquals !== undefined ? { equals: jsonEquals } : {}) } }
        : {}),
      ...(regex !== undefined || javascript !== undefined ? { filter } : {}),
    },
  };
}
