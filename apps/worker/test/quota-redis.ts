import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll } from "vitest";

/**
 * The file's Kafka quota counters on the shared Redis, under a key prefix of its own: `quotas` is
 * the worker's `kafka.quotas`, `redis` reads the counters. The prefix's keys are deleted and the
 * client closed after the file (registered first, so after the harness closes).
 */
export function useQuotaRedis(name: string): {
  quotas: { redisUrl: string; redisPrefix: string };
  redis: Redis;
} {
  const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  const quotas = { redisUrl, redisPrefix: `lw_test_${name}_${randomBytes(4).toString("hex")}` };
  // Connected by its first command: a file that fails before then opens no connection.
  const redis = new Redis(redisUrl, { lazyConnect: true });
  afterAll(async () => {
    const keys = await redis.keys(`${quotas.redisPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  return { quotas, redis };
}
