import { describe, expect, it } from "vitest";
import { type BrowsedRecord, recordsAsCsv } from "./record-export";

const record = (key: string, value: string, header: string): BrowsedRecord =>
  ({
    partition: 0,
    offset: 7,
    timestamp: Date.UTC(2026, 0, 2),
    key: { type: "text", data: key },
    value: { type: "text", data: value },
    headers: [{ key: "h", value: { type: "text", data: header } }],
  }) as unknown as BrowsedRecord;

describe("recordsAsCsv", () => {
  it("writes a record a producer filled with formulas as text a spreadsheet shows, not runs", () => {
    const csv = recordsAsCsv([record("=cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "+1")]);
    const [header, row] = csv.split("\r\n");
    expect(header).toBe("partition,offset,timestamp,key,value,tombstone,headers");
    expect(row).toBe(
      `0,7,2026-01-02T00:00:00.000Z,'=cmd|' /C calc'!A0,'@SUM(1+1)*cmd|' /C calc'!A0,false,"{""h"":""+1""}"`,
    );
  });
});
