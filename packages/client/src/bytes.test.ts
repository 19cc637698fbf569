import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBase64, toBase64, utf8TextOrNull } from "./bytes";

describe("client bytes (platform codecs, no Buffer)", () => {
  it("base64 matches Node's encoder both ways for any bytes, including more than one chunk", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70_000, size: "large" }), (bytes) => {
        const text = toBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString("base64"));
        expect(fromBase64(text)).toEqual(new Uint8Array(bytes));
      }),
      { numRuns: 30 },
    );
  });

  it.each([
    ["the URL-safe alphabet", "-_8="],
    ["missing padding", "/wA"],
    ["white space", "/w A="],
    ["padding in the middle", "/w==AAAA"],
    ["a stray character", "/wA*"],
  ])("refuses %s", (_case, data) => {
    expect(fromBase64(data)).toBeNull();
  });

  it("tells UTF-8 from other bytes and drops a leading byte-order mark", () => {
    expect(utf8TextOrNull(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe("a");
    expect(utf8TextOrNull(new TextEncoder().encode("\uFFFD ok"))).toBe("\uFFFD ok");
    expect(utf8TextOrNull(new Uint8Array([0xff, 0x00]))).toBeNull();
    expect(utf8TextOrNull(new Uint8Array([0xc3]))).toBeNull();
  });
});
