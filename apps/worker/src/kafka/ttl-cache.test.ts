import { describe, expect, it } from "vitest";
import { TtlCache } from "./ttl-cache";

function counting(values: (number | Error)[]) {
  let calls = 0;
  const load = () => {
    const next = values[calls++]!;
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return { load, calls: () => calls };
}

describe("TtlCache", () => {
  it("reuses a load within the TTL, shares one in flight, and loads again once the TTL passed", async () => {
    let now = 1_000;
    const cache = new TtlCache<string, number>({ ttlMs: 250, now: () => now });
    const source = counting([1, 2]);
    const [a, b] = await Promise.all([cache.get("k", source.load), cache.get("k", source.load)]);
    expect([a, b, source.calls()]).toEqual([1, 1, 1]);
    now += 249;
    expect(await cache.get("k", source.load)).toBe(1);
    now += 1;
    expect(await cache.get("k", source.load)).toBe(2);
    expect(source.calls()).toBe(2);
  });

  it("forgets a failed load, so the next caller loads again; keys are apart", async () => {
    const cache = new TtlCache<string, number>({ ttlMs: 10_000, now: () => 0 });
    const source = counting([new Error("database down"), 7, 8]);
    await expect(cache.get("k", source.load)).rejects.toThrow("database down");
    expect(await cache.get("k", source.load)).toBe(7);
    expect(await cache.get("other", source.load)).toBe(8);
    expect(await cache.get("k", source.load)).toBe(7);
  });

  it("clear() and more than maxKeys entries both start over", async () => {
    const cache = new TtlCache<number, number>({ ttlMs: 10_000, now: () => 0, maxKeys: 2 });
    const source = counting([1, 2, 3, 4, 5]);
    for (const key of [1, 2, 3]) await cache.get(key, source.load);
    // Three entries exceed maxKeys 2: the fourth key's get starts over, so key 1 loads again.
    await cache.get(4, source.load);
    expect(await cache.get(1, source.load)).toBe(5);
    cache.clear();
    const again = counting([9]);
    expect(await cache.get(1, again.load)).toBe(9);
  });

  it("forget() drops one key: it loads again, the others stay", async () => {
    const cache = new TtlCache<string, number>({ ttlMs: 10_000, now: () => 0 });
    const source = counting([1, 2, 3]);
    expect(await cache.get("a", source.load)).toBe(1);
    expect(await cache.get("b", source.load)).toBe(2);
    cache.forget("a");
    expect(await cache.get("a", source.load)).toBe(3);
    expect(await cache.get("b", source.load)).toBe(2);
  });
});

describe("TtlCache refresh-ahead", () => {
  it("answers from the entry in its last quarter and replaces it with one background load", async () => {
    let now = 0;
    const cache = new TtlCache<string, number>({ ttlMs: 400, now: () => now });
    const source = counting([1, 2]);
    expect(await cache.get("k", source.load)).toBe(1);
    now = 299; // before the last quarter: no load
    expect(await cache.get("k", source.load)).toBe(1);
    expect(source.calls()).toBe(1);
    now = 300; // in it: still the entry, and one load starts
    expect(await cache.get("k", source.load)).toBe(1);
    expect(await cache.get("k", source.load)).toBe(2);
    expect(source.calls()).toBe(2);
    // The new entry is stamped with its load's start (300): it expires at 700, not later.
    now = 699;
    const later = counting([3]);
    expect(await cache.get("k", later.load)).toBe(2);
    now = 700;
    expect(await cache.get("k", later.load)).toBe(3);
  });

  it("a failed refresh leaves the entry to expire and the next get after it loads", async () => {
    let now = 0;
    const cache = new TtlCache<string, number>({ ttlMs: 400, now: () => now });
    const source = counting([1, new Error("database down"), 5]);
    expect(await cache.get("k", source.load)).toBe(1);
    now = 350;
    expect(await cache.get("k", source.load)).toBe(1);
    await Promise.resolve();
    expect(await cache.get("k", source.load)).toBe(1);
    expect(source.calls()).toBe(2);
    now = 400;
    expect(await cache.get("k", source.load)).toBe(5);
  });

  it("a forget during a refresh wins: the refreshed value is not stored", async () => {
    let now = 0;
    const cache = new TtlCache<string, number>({ ttlMs: 400, now: () => now });
    let release: (value: number) => void = () => undefined;
    const slow = new Promise<number>((resolve) => {
      release = resolve;
    });
    const loads = [() => Promise.resolve(1), () => slow, () => Promise.resolve(3)];
    let calls = 0;
    const load = () => loads[calls++]!();
    expect(await cache.get("k", load)).toBe(1);
    now = 350;
    expect(await cache.get("k", load)).toBe(1);
    cache.forget("k");
    release(2);
    await slow;
    expect(await cache.get("k", load)).toBe(3);
  });
});
