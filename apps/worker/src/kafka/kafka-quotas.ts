import { produceThrottleMs } from "@lastword/api/produce-throttle";
import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import { Redis } from "ioredis";
import type { Logger } from "../logger";

export interface KafkaQuotaConfig {
  /** The Redis the web's REST produce admission counts in: both paths share one budget per tenant. */
  redisUrl: string;
  redisPrefix: string;
}

/**
 * The tenants' produce quotas as the Kafka listener applies them: a produce over the quota is
 * appended and answered with `throttle_time_ms`, and the connection is muted for that long
 * (KIP-219). Redis trouble throttles nobody: a quota is a fairness limit, not a reason to stop
 * accepting writes, and the storage fence still guards the log.
 */
export class KafkaQuotas {
  readonly #redis: Redis;
  readonly #deps: { prisma: PrismaClient; clock: Clock; redisPrefix: string; logger: Logger };

  constructor(config: KafkaQuotaConfig, deps: { prisma: PrismaClient; clock: Clock; logger: Logger }) {
    // One attempt per command: a produce must not wait on Redis reconnecting.
    this.#redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    this.#redis.on("error", (error) => deps.logger.debug({ err: error }, "kafka quota redis error"));
    this.#deps = { ...deps, redisPrefix: config.redisPrefix };
  }

  /** Counts `bytes` produced by the tenant; the throttle its response carries (0 within the quota). */
  async produced(tenantId: string, bytes: number): Promise<number> {
    try {
      return await produceThrottleMs({ ...this.#deps, redis: this.#redis }, tenantId, bytes);
    } catch (error) {
      this.#deps.logger.warn({ err: error, tenantId }, "kafka produce quota not checked");
      return 0;
    }
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
