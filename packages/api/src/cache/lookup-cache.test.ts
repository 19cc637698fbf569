import { ManualClock } from "@lastword/logstore";
import { describe, expect, it } from "vitest";
import { cachePerOwner, LookupCache, STALE_IF_UNREACHABLE_MS } from "./lookup-cache";

const TTL = 500;
const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

function setup() {
  const clock = new ManualClock(1_000);
  const cache = new LookupCache<{ v: number }>({ ttlMs: TTL, clock });
  let loads = 0;
  let next: () => Promise<{ v: number } | null> = async () => ({ v: loads });
  const load = () => {
    loads++;
    return next();
  };
  return {
    cache,
    get: () => cache.get("k", load),
    loads: () => loads,
    advance: (ms: number) => clock.advance(ms),
    answer: (fn: () => Promise<{ v: number } | null>) => {
      next = fn;
    },
  };
}

describe("LookupCache", () => {
  it("reuses a value for the TTL, then loads again", async () => {
    const t = setup();
    expect(await t.get()).toEqual({ v: 1 });
    t.advance((TTL * 3) / 4 - 1);
    expect(await t.get()).toEqual({ v: 1 });
    expect(t.loads()).toBe(1);
    t.advance(TTL / 4 + 2);
    expect(await t.get()).toEqual({ v: 2 });
    expect(t.loads()).toBe(2);
  });

  it("in an entry's last quarter answers from it and refreshes it once in the background", async () => {
    const t = setup();
    expect(await t.get()).toEqual({ v: 1 });
    t.advance((TTL * 3) / 4);
    expect(await t.get()).toEqual({ v: 1 });
    expect(await t.get()).toEqual({ v: 2 });
    expect(t.loads()).toBe(2);
    // The refreshed entry lives a whole TTL from its load: no load on the path past the first's end.
    t.advance(TTL / 2);
    expect(await t.get()).toEqual({ v: 2 });
    expect(t.loads()).toBe(2);
  });

  it("a failed refresh-ahead is not retried per get: the entry serves out its TTL", async () => {
    const t = setup();
    expect(await t.get()).toEqual({ v: 1 });
    t.answer(() => Promise.reject(new Error("syntax error at or near")));
    t.advance((TTL * 3) / 4);
    expect(await t.get()).toEqual({ v: 1 });
    expect(await t.get()).toEqual({ v: 1 });
    expect(t.loads()).toBe(2);
    t.answer(async () => ({ v: 9 }));
    t.advance(TTL / 4 + 1);
    expect(await t.get()).toEqual({ v: 9 });
  });

  it("a forget during a refresh-ahead wins: its value is not stored", async () => {
    const t = setup();
    expect(await t.get()).toEqual({ v: 1 });
    let release: (value: { v: number }) => void = () => undefined;
    const slow = new Promise<{ v: number }>((resolve) => {
      release = resolve;
    });
    t.answer(() => slow);
    t.advance((TTL * 3) / 4);
    expect(await t.get()).toEqual({ v: 1 });
    t.cache.forget("k");
    t.answer(async () => ({ v: 7 }));
    release({ v: 2 });
    await slow;
    expect(await t.get()).toEqual({ v: 7 });
  });

  it("shares one load between concurrent misses", async () => {
    const t = setup();
    const values = await Promise.all([t.get(), t.get(), t.get()]);
    expect(values).toEqual([{ v: 1 }, { v: 1 }, { v: 1 }]);
    expect(t.loads()).toBe(1);
  });

  it("caches a lookup that found nothing for the TTL", async () => {
    const t = setup();
    t.answer(async () => null);
    expect(await t.get()).toBeNull();
    expect(await t.get()).toBeNull();
    expect(t.loads()).toBe(1);
  });

  it("loads again after forget, and does not keep a load that was in flight when forgotten", async () => {
    const t = setup();
    expect(await t.get()).toEqual({ v: 1 });
    t.cache.forget("k");
    expect(await t.get()).toEqual({ v: 2 });

    // A load that started before the change answers after it: its value must not be kept, and the
    // caller waiting on it reads again.
    let release!: () => void;
    t.answer(() => new Promise((resolve) => (release = () => resolve({ v: -1 }))));
    t.advance(TTL + 1);
    const waiting = t.get();
    await Promise.resolve();
    t.answer(async () => ({ v: 100 }));
    t.cache.forget("k");
    release();
    expect(await waiting).toEqual({ v: 100 });
    expect(await t.get()).toEqual({ v: 100 });
  });

  it("keeps no failed load: an error propagates and the next call loads again", async () => {
    const t = setup();
    t.answer(async () => {
      throw new Error("syntax error at or near");
    });
    await expect(t.get()).rejects.toThrow("syntax error");
    t.answer(async () => ({ v: 7 }));
    expect(await t.get()).toEqual({ v: 7 });
  });

  it("serves the last value while the database is unreachable, for at most STALE_IF_UNREACHABLE_MS", async () => {
    const t = setup();
    expect(await t.get()).toEqual({ v: 1 });
    t.answer(async () => {
      throw refused();
    });
    t.advance(TTL + 1);
    expect(await t.get()).toEqual({ v: 1 });
    const failedLoads = t.loads();
    // Served stale for another TTL without asking the database again on every call.
    expect(await t.get()).toEqual({ v: 1 });
    expect(t.loads()).toBe(failedLoads);
    t.advance(STALE_IF_UNREACHABLE_MS - 2 * TTL);
    expect(await t.get()).toEqual({ v: 1 });
    // Past the bound (counted from the last successful read), the lookup's error propagates.
    t.advance(2 * TTL);
    await expect(t.get()).rejects.toMatchObject({ code: "ECONNREFUSED" });
    // Back up: fresh values again.
    t.answer(async () => ({ v: 9 }));
    expect(await t.get()).toEqual({ v: 9 });
  });

  it("never serves a stale 'not found', and serves nothing stale for other errors", async () => {
    const t = setup();
    t.answer(async () => null);
    expect(await t.get()).toBeNull();
    t.answer(async () => {
      throw refused();
    });
    t.advance(TTL + 1);
    await expect(t.get()).rejects.toMatchObject({ code: "ECONNREFUSED" });

    t.answer(async () => ({ v: 5 }));
    expect(await t.get()).toEqual({ v: 5 });
    t.answer(async () => {
      throw new Error("permission denied for table Quota");
    });
    t.advance(TTL + 1);
    await expect(t.get()).rejects.toThrow("permission denied");
  });

  it("keeps nothing stale after clear", async () => {
    const t = setup();
    expect(await t.get()).toEqual({ v: 1 });
    t.cache.clear();
    t.answer(async () => {
      throw refused();
    });
    await expect(t.get()).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });
});

describe("cachePerOwner", () => {
  it("gives each owner one cache, aged by the clock it was first read with", async () => {
    const caches = cachePerOwner<{ v: number }>({ ttlMs: TTL });
    const owner = {};
    const clock = new ManualClock(1_000);
    let loads = 0;
    const load = async () => ({ v: ++loads });
    expect(await caches.of(owner, clock).get("k", load)).toEqual({ v: 1 });
    expect(await caches.of({}, clock).get("k", load)).toEqual({ v: 2 });
    clock.advance(TTL + 1);
    expect(await caches.of(owner, clock).get("k", load)).toEqual({ v: 3 });
    expect(() => caches.of(owner, new ManualClock(1_000))).toThrow("two clocks");
  });

  it("forgets nothing, and makes no cache, for an owner never read", () => {
    const caches = cachePerOwner<{ v: number }>({ ttlMs: TTL });
    const owner = {};
    caches.existing(owner)?.forget("k");
    expect(caches.existing(owner)).toBeUndefined();
  });
});
