import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KEY_INDEX_BYTES_PER_SLOT, KeyIndex } from "../src/hosting/key-index";

describe("key index", () => {
  it("answers the highest offset written per key, whatever the order of writes (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.nat(100_000), fc.boolean()), {
          maxLength: 3000,
        }),
        (writes) => {
          const index = new KeyIndex();
          const model = new Map<number, { offset: number; tombstone: boolean }>();
          for (const [k, offset, tombstone] of writes) {
            index.set(Buffer.from(`key-${k}`), offset, tombstone);
            const known = model.get(k);
            if (!known || known.offset <= offset) model.set(k, { offset, tombstone });
          }
          expect(index.size).toBe(model.size);
          for (let k = 0; k <= 300; k++) expect(index.get(Buffer.from(`key-${k}`))).toEqual(model.get(k));
          // What a snapshot reads: the live entries' offsets, ascending.
          const live = [...model.values()].filter((e) => !e.tombstone).map((e) => e.offset);
          expect([...index.freeze().liveOffsets()]).toEqual(live.sort((a, b) => a - b));
          // What the Kafka `.latest` view reads: every key's latest, tombstones included.
          const latest = [...model.values()].map((e) => e.offset);
          expect([...index.freeze().latestOffsets()]).toEqual(latest.sort((a, b) => a - b));
          expect([...index.latestOffsets()]).toEqual(latest);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("a frozen copy does not see later writes", () => {
    const index = new KeyIndex();
    index.set(Buffer.from("a"), 1, false);
    const frozen = index.freeze();
    index.set(Buffer.from("a"), 7, true);
    index.set(Buffer.from("b"), 8, false);
    expect(frozen.get(Buffer.from("a"))).toEqual({ offset: 1, tombstone: false });
    expect(frozen.get(Buffer.from("b"))).toBeUndefined();
    expect(index.get(Buffer.from("a"))).toEqual({ offset: 7, tombstone: true });
  });

  it("memory per key stays bounded (≤ 17 B per slot, ≤ 3/4 full) and independent of key size", () => {
    const index = new KeyIndex();
    for (let k = 0; k < 100_000; k++) index.set(Buffer.from(`${"long-key-".repeat(20)}${k}`), k, false);
    expect(index.size).toBe(100_000);
    expect(index.bytes / index.size).toBeLessThanOrEqual((KEY_INDEX_BYTES_PER_SLOT / 0.75) * 2);
    expect(index.bytes).toBe(KEY_INDEX_BYTES_PER_SLOT * 2 ** 18);
  });
});
