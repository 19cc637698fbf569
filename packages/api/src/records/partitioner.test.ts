import { describe, expect, it } from "vitest";
import { murmur2, partitionForKey } from "./partitioner";

describe("Kafka default partitioner", () => {
  // The vectors of Kafka's own UtilsTest.testMurmur2.
  it.each([
    ["21", -973932308],
    ["foobar", -790332482],
    ["a-little-bit-long-string", -985981536],
    ["a-little-bit-longer-string", -1486304829],
    ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971],
    ["abc", 479470107],
  ])("murmur2(%s) = %i", (text, expected) => {
    expect(murmur2(Buffer.from(text))).toBe(expected);
  });

  it("maps a key to the same partition every time, within range", () => {
    for (const n of [1, 3, 7, 64]) {
      const p = partitionForKey(Buffer.from("user-1"), n);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(n);
      expect(partitionForKey(Buffer.from("user-1"), n)).toBe(p);
    }
  });
});
