import { describe, expect, it } from "vitest";
import { ENVELOPE_FORMATS, envelopeSchema } from "../src/index";

describe("the record envelope", () => {
  it("takes the three encodings, with null data for a tombstone or null key", () => {
    for (const envelope of [
      { type: "string", data: "" },
      { type: "json", data: { a: [1, null, "x"] } },
      { type: "base64", data: "aGk=" },
      { type: "string", data: null },
      { type: "json", data: null },
      { type: "base64", data: null },
    ]) {
      expect(envelopeSchema.parse(envelope)).toEqual(envelope);
    }
  });

  it("refuses an unknown type, a missing data member and non-text data for text encodings", () => {
    for (const bad of [
      { type: "hex", data: "00" },
      { type: "string" },
      { type: "string", data: 5 },
      { type: "base64", data: [1, 2] },
      "text",
    ]) {
      expect(envelopeSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("offers every encoding as a read format, and auto", () => {
    expect([...ENVELOPE_FORMATS].sort()).toEqual(["auto", "base64", "json", "string"]);
  });
});
