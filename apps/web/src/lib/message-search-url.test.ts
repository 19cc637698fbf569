import { describe, expect, it } from "vitest";
import { EMPTY_SEARCH_FORM } from "../components/topic/message-search-input";
import { hasSearchParams, localInputTime, readSearchParams, writeSearchParams } from "./message-search-url";

const write = (form: typeof EMPTY_SEARCH_FORM, start = "tab=messages") => {
  const params = new URLSearchParams(start);
  writeSearchParams(params, form, EMPTY_SEARCH_FORM);
  return params;
};

describe("the message search in the URL", () => {
  it("leaves a default search out and keeps the tab", () => {
    const params = write(EMPTY_SEARCH_FORM);
    expect(params.toString()).toBe("tab=messages");
    expect(hasSearchParams(params)).toBe(false);
  });

  it("reads back every field it wrote", () => {
    const form = {
      ...EMPTY_SEARCH_FORM,
      partition: 2,
      from: "offset" as const,
      offsets: { 2: "120" },
      untilTime: localInputTime(Date.UTC(2026, 0, 2, 3, 4, 5)),
      key: "order",
      value: "paid",
      headerKey: "source",
      headerValue: "web",
      jsonPath: "$.total",
      jsonEquals: "40",
      regex: "^refund-\\d+$",
      regexOn: "key" as const,
      javascript: "return record.json?.total > 100",
      limit: 500,
      scanLimit: 100_000,
    };
    const params = write(form);
    expect(hasSearchParams(params)).toBe(true);
    expect(params.get("until")).toBe(String(Date.UTC(2026, 0, 2, 3, 4, 5)));
    expect(readSearchParams(new URLSearchParams(params.toString()), EMPTY_SEARCH_FORM)).toEqual(form);
  });

  it("carries a start time as an instant, shown in the reader's zone", () => {
    const at = Date.UTC(2026, 5, 1, 12, 0, 0);
    const params = write({ ...EMPTY_SEARCH_FORM, from: "timestamp", fromTime: localInputTime(at) });
    expect(params.get("since")).toBe(String(at));
    expect(new Date(readSearchParams(params, EMPTY_SEARCH_FORM).fromTime).getTime()).toBe(at);
  });

  it("keeps the default for a parameter that does not parse", () => {
    const form = readSearchParams(
      new URLSearchParams("partition=x&from=sideways&limit=-3&regexOn=all&offsets=1:a,2:5"),
      EMPTY_SEARCH_FORM,
    );
    expect(form).toEqual({ ...EMPTY_SEARCH_FORM, offsets: { 2: "5" } });
  });
});
