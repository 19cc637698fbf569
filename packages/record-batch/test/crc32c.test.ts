import { crc32c as nativeCrc32c } from "@node-rs/crc32";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32c, crc32cJs, useCrc32c } from "../src/crc32c";

describe("CRC-32C", () => {
  it("the portable implementation answers the check value and what @node-rs/crc32 answers", () => {
    // RFC 3720 B.4 / the CRC catalogue's check value for "123456789".
    expect(crc32cJs(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
    expect(crc32cJs(new Uint8Array(0))).toBe(0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2_000 }), fc.nat(64), (bytes, cut) => {
        // A view at an odd byteOffset, as batches inside a read buffer are.
        const view = bytes.subarray(Math.min(cut, bytes.length));
        expect(crc32cJs(view)).toBe(nativeCrc32c(view));
        expect(crc32cJs(view.subarray(7), crc32cJs(view.subarray(0, 7)))).toBe(nativeCrc32c(view));
      }),
      { numRuns: 300 },
    );
  });

  it("useCrc32c swaps the implementation every batch checksum goes through", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    useCrc32c(() => 42);
    try {
      expect(crc32c(bytes)).toBe(42);
    } finally {
      useCrc32c(crc32cJs);
    }
    expect(crc32c(bytes)).toBe(nativeCrc32c(bytes));
  });
});
