import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashKey128, keyHashWords } from "../src/key-hash";
import {
  acquireOffsetMap,
  OFFSET_MAP_BYTES_PER_SLOT,
  OffsetMap,
  offsetMapMaxEntries,
  offsetMapSlots,
  releaseOffsetMap,
} from "../src/offset-map";

const enc = new TextEncoder();

describe("key hash (MurmurHash3 x86_128)", () => {
  it("matches SMHasher's verification value 0xB3ECE62A", () => {
    // SMHasher's VerificationTest: hash {}, {0}, {0,1}, … with seed 256 - n, then hash the hashes.
    const key = new Uint8Array(256);
    const hashes = new Uint8Array(16 * 256);
    const view = new DataView(hashes.buffer);
    for (let n = 0; n < 256; n++) {
      key[n] = n;
      hashKey128(key, 0, n, 256 - n);
      for (let w = 0; w < 4; w++) view.setInt32(n * 16 + w * 4, keyHashWords[w]!, true);
    }
    hashKey128(hashes, 0, hashes.length, 0);
    expect(keyHashWords[0]! >>> 0).toBe(0xb3ece62a);
  });

  it("hashes a byte range the same wherever it sits in the buffer", () => {
    const alone = enc.encode("tenant-42");
    hashKey128(alone, 0, alone.length, 9);
    const expected = Array.from(keyHashWords);
    const embedded = enc.encode("xx tenant-42 yy");
    hashKey128(embedded, 3, 12, 9);
    expect(Array.from(keyHashWords)).toEqual(expected);
  });
});

describe("offset map", () => {
  it("sizes slots as the largest prime within budget / 24 B and refuses budgets below one entry", () => {
    expect(offsetMapSlots(24 * 100)).toBe(97);
    expect(offsetMapMaxEntries(24 * 100)).toBe(87);
    expect(offsetMapMaxEntries(47)).toBe(0);
    expect(offsetMapMaxEntries(48)).toBe(1);
    expect(() => new OffsetMap(40)).toThrow(RangeError);
    const map = new OffsetMap(64 << 20);
    expect((map.slots * OFFSET_MAP_BYTES_PER_SLOT) / map.maxEntries).toBeLessThanOrEqual(32);
  });

  it("returns -1 for a missing key and the latest put for a present one", () => {
    const map = new OffsetMap(24 * 50);
    map.clear(1);
    const a = enc.encode("a");
    expect(map.get(a, 0, 1)).toBe(-1);
    map.put(a, 0, 1, 5);
    map.put(a, 0, 1, 2 ** 40);
    expect(map.get(a, 0, 1)).toBe(2 ** 40);
    expect(map.size).toBe(1);
  });

  it("reports full at floor(slots × 0.9) distinct keys", () => {
    const map = new OffsetMap(24 * 11);
    map.clear(3);
    for (let i = 0; !map.full; i++) map.put(enc.encode(`k${i}`), 0, `k${i}`.length, i);
    expect(map.size).toBe(9);
    expect(map.utilization).toBeCloseTo(9 / 11);
  });

  it("behaves like a Map of latest offsets (property)", () => {
    const op = fc.record({ key: fc.uint8Array({ maxLength: 40 }), offset: fc.nat(2 ** 50) });
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 300 }),
        fc.integer(),
        fc.integer({ min: 2, max: 400 }),
        (ops, seed, slots) => {
          const map = acquireOffsetMap(slots * 24, seed);
          const model = new Map<string, number>();
          for (const { key, offset } of ops) {
            const id = Buffer.from(key).toString("hex");
            if (map.full && !model.has(id)) break;
            map.put(key, 0, key.length, offset);
            model.set(id, offset);
            expect(map.size).toBe(model.size);
          }
          for (const { key } of ops) {
            const id = Buffer.from(key).toString("hex");
            expect(map.get(key, 0, key.length)).toBe(model.get(id) ?? -1);
          }
          releaseOffsetMap(map);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is empty again after clear, whatever it held", () => {
    const map = acquireOffsetMap(24 * 100, 1);
    map.put(enc.encode("x"), 0, 1, 7);
    releaseOffsetMap(map);
    const again = acquireOffsetMap(24 * 100, 2);
    expect(again).toBe(map);
    expect(again.size).toBe(0);
    expect(again.get(enc.encode("x"), 0, 1)).toBe(-1);
  });
});
