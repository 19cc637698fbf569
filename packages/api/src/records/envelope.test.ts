import { describe, expect, it } from "vitest";
import { bytesToEnvelope, envelopeToBytes } from "./envelope";

describe("base64 envelopes", () => {
  it("decodes what z.base64() accepts and refuses the rest, naming where", () => {
    for (const data of ["", "aGk=", "aGlh", "aA==", "+/+/"]) {
      expect(envelopeToBytes({ type: "base64", data }, "records[0].value")).toEqual(
        Buffer.from(data, "base64"),
      );
    }
    for (const data of ["***", "aGk", "aG k=", "a===", "aG=k", "ab*=", "aGk=\n", "-_-_", "aGé=", "===="]) {
      expect(() => envelopeToBytes({ type: "base64", data }, "records[2].value"), data).toThrow(
        expect.objectContaining({
          code: "INVALID_INPUT",
          message: expect.stringContaining("records[2].value"),
        }),
      );
    }
  });
});

describe("bytesToEnvelope", () => {
  it("keeps null (a tombstone) apart from an empty value", () => {
    expect(bytesToEnvelope(null, "auto")).toBeNull();
    expect(bytesToEnvelope(Buffer.alloc(0), "auto")).toEqual({ type: "string", data: "" });
  });

  it("answers JSON when asked for JSON and the bytes are JSON", () => {
    expect(bytesToEnvelope(Buffer.from('{"a":1}'), "json")).toEqual({ type: "json", data: { a: 1 } });
  });

  it("falls back to text, not base64, when JSON is asked for but the bytes are plain text", () => {
    expect(bytesToEnvelope(Buffer.from("v5"), "json")).toEqual({ type: "string", data: "v5" });
  });

  it("uses base64 for bytes that are not text, and whenever base64 is asked for", () => {
    expect(bytesToEnvelope(Buffer.from([0xff, 0xfe, 0x00]), "json")).toEqual({
      type: "base64",
      data: "//4A",
    });
    expect(bytesToEnvelope(Buffer.from("hi"), "base64")).toEqual({ type: "base64", data: "aGk=" });
  });
});
