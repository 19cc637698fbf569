import { throttleMsOver } from "@lastword/api/produce-throttle";
import type { TenantQuota } from "@lastword/api/tenant-quota";
import type { Logger } from "../logger";
import { LogSampler } from "./log-sampler";
import { WindowCounter } from "./window-counter";

/**
 * The tenant quotas this worker meters on its own, per second, as a Kafka broker meters its
 * request and fetch quotas per broker: what a tenant's requests cost *this* worker.
 */
export type RateQuotaName = "requestTimeMsPerSecond" | "fetchBytesPerSecond";

/** What one request used of each metered quota (milliseconds of loop time, bytes fetched). */
export type RateUsage = Record<RateQuotaName, number>;

export function noUsage(): RateUsage {
  return { requestTimeMsPerSecond: 0, fetchBytesPerSecond: 0 };
}

/** The throttle a request's answer carries: 0 within every quota, else the longest and the quota it is for. */
export interface RateThrottle {
  ms: number;
  quota: RateQuotaName | null;
}

const WINDOW_MS = 1000;
/** Tenants remembered per quota (the least recently charged forgotten first). */
const MAX_TENANTS = 100_000;
/** At most one log line per quota per this long. */
const THROTTLE_LOG_INTERVAL_MS = 1_000;

export interface TenantRatesDeps {
  tenantQuota(tenantId: string): Promise<Pick<TenantQuota, RateQuotaName>>;
  logger: Logger;
  /** Wall time: a window must pass in real seconds even when a test holds the worker's clock. */
  now(): number;
}

/**
 * Per tenant and quota, what its requests used in the current one-second window on this worker;
 * a request that takes the tenant over a quota is answered with Kafka's throttle time
 * ((used − quota) / quota × 1 s, at most 11 s) and its connection muted for that long (KIP-219), so
 * the tenant's next requests wait on its own connections and the loop serves other tenants.
 */
export class TenantRates {
  readonly #deps: TenantRatesDeps;
  readonly #used = new Map<RateQuotaName, WindowCounter>();
  readonly #logged: LogSampler<RateQuotaName>;

  constructor(deps: TenantRatesDeps) {
    this.#deps = deps;
    this.#logged = new LogSampler(THROTTLE_LOG_INTERVAL_MS, deps.now);
    for (const quota of ["requestTimeMsPerSecond", "fetchBytesPerSecond"] as const) {
      this.#used.set(quota, new WindowCounter({ windowMs: WINDOW_MS, maxKeys: MAX_TENANTS, now: deps.now }));
    }
  }

  /** Adds what a request used to its tenant's windows, without answering a throttle (work after the answer). */
  add(tenantId: string, quota: RateQuotaName, amount: number): number {
    return amount > 0 ? this.#counter(quota).add(tenantId, amount) : this.#counter(quota).count(tenantId);
  }

  /** Charges a request's usage and answers the throttle its response carries. */
  async charge(tenantId: string, usage: RateUsage): Promise<RateThrottle> {
    const used = {
      requestTimeMsPerSecond: this.add(tenantId, "requestTimeMsPerSecond", usage.requestTimeMsPerSecond),
      fetchBytesPerSecond: this.add(tenantId, "fetchBytesPerSecond", usage.fetchBytesPerSecond),
    };
    let quota: Pick<TenantQuota, RateQuotaName>;
    try {
      quota = await this.#deps.tenantQuota(tenantId);
    } catch (error) {
      // A quota is a fairness limit, not a reason to stop serving: unknown, it throttles nobody.
      this.#deps.logger.debug({ err: error, tenantId }, "kafka request quota not checked");
      return { ms: 0, quota: null };
    }
    let throttle: RateThrottle = { ms: 0, quota: null };
    for (const name of ["requestTimeMsPerSecond", "fetchBytesPerSecond"] as const) {
      const ms = throttleMsOver(used[name], quota[name]);
      if (ms > throttle.ms) throttle = { ms, quota: name };
    }
    if (throttle.quota) this.#log(tenantId, throttle, used[throttle.quota], quota[throttle.quota]);
    return throttle;
  }

  #counter(quota: RateQuotaName): WindowCounter {
    return this.#used.get(quota) as WindowCounter;
  }

  // One line per quota and second, with how many throttles it stands for: the quota is named, so
  // an operator (and the tenant, through the metric) sees which limit holds it.
  #log(tenantId: string, throttle: RateThrottle, used: number, limit: number): void {
    const quota = throttle.quota as RateQuotaName;
    const suppressed = this.#logged.take(quota);
    if (suppressed === null) return;
    this.#deps.logger.warn(
      {
        tenantId,
        quota,
        limit,
        used: Math.round(used),
        throttleMs: throttle.ms,
        alsoThrottledSinceLastLine: suppressed,
      },
      `kafka tenant over its ${quota} quota (${limit} per second): answered with throttle_time_ms ${throttle.ms} and its connection muted`,
    );
  }
}
