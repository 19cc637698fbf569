import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { metered, RequestMeter } from "./request-time";
import { noUsage, TenantRates } from "./tenant-rates";

/** Keeps the loop busy for `ms` (what a CPU-heavy step of a request does). */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("RequestMeter", () => {
  it("charges each request the loop time of its own continuations, not its neighbour's, nor its waits", async () => {
    const busy = new RequestMeter();
    const idle = new RequestMeter();
    const waiting = new RequestMeter();
    await Promise.all([
      metered(busy, async () => {
        for (let i = 0; i < 5; i++) {
          await delay(1);
          spin(20);
        }
      }),
      metered(idle, async () => {
        for (let i = 0; i < 5; i++) await delay(1);
      }),
      metered(waiting, () => delay(100)),
    ]);
    // 100 ms spun between awaits, each after a timer: all of it on the busy request's meter.
    expect(busy.ms).toBeGreaterThanOrEqual(100);
    // Its neighbours ran interleaved with it but spun nothing; waiting on a timer costs no loop time.
    expect(idle.ms).toBeLessThan(busy.ms / 2);
    expect(waiting.ms).toBeLessThan(100);
  });
});

describe("TenantRates", () => {
  const logger = pino({ level: "silent" });

  it("throttles as Kafka does past a quota, names it, keeps tenants apart and forgets a window once it passed", async () => {
    let now = 10_000;
    const rates = new TenantRates({
      logger,
      now: () => now,
      tenantQuota: async () => ({ requestTimeMsPerSecond: 100, fetchBytesPerSecond: 1_000 }),
    });
    const usage = (ms: number, bytes = 0) => ({ requestTimeMsPerSecond: ms, fetchBytesPerSecond: bytes });
    expect(await rates.charge("a", usage(60))).toEqual({ ms: 0, quota: null });
    // 60 + 90 = 150 ms of a 100 ms/s quota: (150 − 100) / 100 × 1 s.
    expect(await rates.charge("a", usage(90))).toEqual({ ms: 500, quota: "requestTimeMsPerSecond" });
    expect(await rates.charge("b", usage(90))).toEqual({ ms: 0, quota: null });
    // The longer of the two throttles answers: 4,000 bytes of 1,000 a second is 3 s.
    expect(await rates.charge("b", usage(20, 4_000))).toEqual({ ms: 3_000, quota: "fetchBytesPerSecond" });
    // Work after an answer counts without a throttle of its own, and weighs on the next request:
    // 90 + 20 + 500 ms used, (610 − 100) / 100 × 1 s.
    rates.add("b", "requestTimeMsPerSecond", 500);
    expect(await rates.charge("b", noUsage())).toEqual({ ms: 5_100, quota: "requestTimeMsPerSecond" });
    now += 1_000;
    expect(await rates.charge("a", usage(90))).toEqual({ ms: 0, quota: null });
    expect(await rates.charge("b", noUsage())).toEqual({ ms: 0, quota: null });
  });

  it("throttles nobody while the tenant's quota cannot be read", async () => {
    const rates = new TenantRates({
      logger,
      now: () => 0,
      tenantQuota: () => Promise.reject(new Error("database unreachable")),
    });
    expect(await rates.charge("a", { requestTimeMsPerSecond: 1e6, fetchBytesPerSecond: 1e9 })).toEqual({
      ms: 0,
      quota: null,
    });
  });
});
