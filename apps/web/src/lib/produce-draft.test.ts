import { describe, expect, it } from "vitest";
import {
  buildDraft,
  draftFromRecord,
  EMPTY_DRAFT,
  type ProduceDraft,
  produceRefusal,
  writtenSentence,
} from "./produce-draft";

const DRAFT: ProduceDraft = { ...EMPTY_DRAFT, key: "k", value: "v" };

describe("produce draft", () => {
  it("encodes the key as text, JSON or base64, and refuses a bad one by name", () => {
    expect(buildDraft({ ...DRAFT, key: '{"id":1}', keyEncoding: "json" })).toMatchObject({
      records: [{ key: { type: "json", data: { id: 1 } } }],
    });
    expect(buildDraft({ ...DRAFT, key: "AAE=", keyEncoding: "base64" })).toMatchObject({
      records: [{ key: { type: "base64", data: "AAE=" } }],
    });
    expect(buildDraft({ ...DRAFT, key: "not base64!", keyEncoding: "base64" })).toEqual({
      field: "key",
      problem: "The key is not valid base64.",
    });
  });

  it("makes one record per line or per JSON array element, naming the line that is wrong", () => {
    const lines = buildDraft({ ...DRAFT, mode: "lines", valueEncoding: "json", value: '1\n\n{"a":2}' });
    expect("records" in lines && lines.records.map((r) => r.value)).toEqual([
      { type: "json", data: 1 },
      { type: "json", data: { a: 2 } },
    ]);
    const bad = buildDraft({ ...DRAFT, mode: "lines", valueEncoding: "json", value: "1\n{oops" });
    expect("problem" in bad && bad.problem).toMatch(/^Line 2 is not valid JSON/);
    const array = buildDraft({ ...DRAFT, mode: "json-array", value: '["a", {"b": 1}]' });
    expect("records" in array && array.records.length).toBe(2);
    expect(buildDraft({ ...DRAFT, mode: "json-array", value: "{}" })).toEqual({
      field: "value",
      problem: "Write the records as a JSON array with at least one element.",
    });
  });

  it("takes a JSON array of whole records, each with its own key and headers", () => {
    const built = buildDraft({
      ...DRAFT,
      key: "c2hhcmVk",
      keyEncoding: "base64",
      headers: "source: form",
      mode: "json-array",
      value: JSON.stringify([
        { key: "AAE=", value: { plan: "pro" }, headers: { trace: "1" } },
        { key: 7, value: [1, 2] },
        { value: null },
        { key: null, value: "x" },
      ]),
    });
    expect("records" in built && built.records).toEqual([
      {
        key: { type: "base64", data: "AAE=" },
        value: { type: "json", data: { plan: "pro" } },
        headers: [
          { key: "source", value: { type: "string", data: "form" } },
          { key: "trace", value: { type: "string", data: "1" } },
        ],
      },
      {
        key: { type: "json", data: 7 },
        value: { type: "json", data: [1, 2] },
        headers: [{ key: "source", value: { type: "string", data: "form" } }],
      },
      // No key of its own: the form's key; a null value is a tombstone.
      {
        key: { type: "base64", data: "c2hhcmVk" },
        value: null,
        headers: [{ key: "source", value: { type: "string", data: "form" } }],
      },
      {
        key: null,
        value: { type: "json", data: "x" },
        headers: [{ key: "source", value: { type: "string", data: "form" } }],
      },
    ]);
    // Objects that are not all records stay values.
    const mixed = buildDraft({ ...DRAFT, mode: "json-array", value: '[{"value": 1}, {"name": "ada"}]' });
    expect("records" in mixed && mixed.records.map((r) => r.value)).toEqual([
      { type: "json", data: { value: 1 } },
      { type: "json", data: { name: "ada" } },
    ]);
    expect(
      buildDraft({
        ...DRAFT,
        key: "",
        keyEncoding: "base64",
        mode: "json-array",
        value: '[{"key": "no!", "value": 1}]',
      }),
    ).toEqual({ field: "value", problem: "Record 1 in the array's key is not valid base64." });
    expect(
      buildDraft({ ...DRAFT, mode: "json-array", value: '[{"value": 1, "headers": {"n": 2}}]' }),
    ).toEqual({
      field: "value",
      problem: 'Record 1 in the array\'s header "n" must be text.',
    });
  });

  it("carries headers and an explicit timestamp; a tombstone is one null value", () => {
    const built = buildDraft({
      ...DRAFT,
      tombstone: true,
      mode: "lines",
      headers: "source: billing\ntrace:  42 ",
      timestamp: "2026-01-02T03:04:05.006",
    });
    expect(built).toEqual({
      records: [
        {
          key: { type: "string", data: "k" },
          value: null,
          headers: [
            { key: "source", value: { type: "string", data: "billing" } },
            { key: "trace", value: { type: "string", data: "42" } },
          ],
          timestamp: new Date("2026-01-02T03:04:05.006").getTime(),
        },
      ],
    });
    expect(buildDraft({ ...DRAFT, headers: "no colon here" })).toMatchObject({ field: "headers" });
  });

  it("says refusals and successes in the form's terms", () => {
    expect(produceRefusal({ code: "NULL_KEY_ON_COMPACTED_TOPIC" }, "Record 0 has no key", 1)).toMatch(
      /^This record has no key, and this topic is compacted/,
    );
    expect(produceRefusal({ code: "OTHER" }, "as the API said", 1)).toBe("as the API said");
    expect(
      writtenSentence([
        { partition: 0, offset: 4 },
        { partition: 0, offset: 5 },
        { partition: 1, offset: 0 },
      ]),
    ).toBe("3 records written to partition 0 at offsets 4–5, partition 1 at offset 0.");
  });
});

describe("produce again", () => {
  it("turns a record read back into a draft that builds the same record, at the time of writing", () => {
    const record = {
      partition: 2,
      key: { type: "string" as const, data: "order-7" },
      value: { type: "json" as const, data: { total: 40, items: ["a"] } },
      headers: [{ key: "source", value: { type: "string" as const, data: "web" } }],
    };
    const draft = draftFromRecord(record);
    expect(draft).toMatchObject({
      key: "order-7",
      keyEncoding: "string",
      valueEncoding: "json",
      partition: 2,
    });
    expect(buildDraft(draft)).toEqual({
      records: [
        {
          key: record.key,
          value: record.value,
          headers: [{ key: "source", value: { type: "string", data: "web" } }],
          partition: 2,
        },
      ],
    });
  });

  it("keeps a tombstone a tombstone, a missing key missing and bytes as base64", () => {
    const draft = draftFromRecord({
      partition: 0,
      key: { type: "base64", data: "AAEC" },
      value: null,
      headers: [],
    });
    expect(draft).toMatchObject({ key: "AAEC", keyEncoding: "base64", tombstone: true, headers: "" });
    expect(buildDraft(draft)).toEqual({
      records: [{ key: { type: "base64", data: "AAEC" }, value: null, partition: 0 }],
    });
    expect(
      draftFromRecord({ partition: 1, key: null, value: { type: "string", data: "" }, headers: [] }),
    ).toMatchObject({
      key: "",
      value: "",
      tombstone: false,
    });
  });
});
