import type { Redis } from "ioredis";
import type { LookupDeps } from "../cache/lookup-cache";
import {
  countInWindow,
  PRODUCE_BYTES_METRIC,
  rateWindow,
  tenantQuota,
  throttleMsOver,
} from "./rate-limit.service";

export interface ProduceThrottleDeps extends LookupDeps {
  redis: Redis;
  redisPrefix: string;
}

/**
 * Counts `bytes` of produce against the tenant's produce-bytes rate — the same per-second Redis
 * counter the REST produce admission counts in, so both entry points share one budget — and
 * answers how long the producer should hold off (0 when within the quota). Unlike REST, which
 * refuses with 429, the Kafka path has already appended the records: Kafka quotas delay, they do
 * not reject.
 */
export async function produceThrottleMs(
  deps: ProduceThrottleDeps,
  tenantId: string,
  bytes: number,
): Promise<number> {
  const window = rateWindow(deps.clock, tenantId, PRODUCE_BYTES_METRIC);
  const [quota, answers] = await Promise.all([
    tenantQuota(deps, tenantId),
    countInWindow(deps.redis.multi(), deps, window, bytes).exec(),
  ]);
  return throttleMsOver(Number(answers?.[0]?.[1] ?? 0), quota.produceBytesPerSecond);
}

export { PRODUCE_BYTES_METRIC, throttleMsOver } from "./rate-limit.service";
