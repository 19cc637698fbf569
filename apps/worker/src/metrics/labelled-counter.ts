import { Counter, type Registry } from "prom-client";

/**
 * A counter of `registry` whose series are split by `labelNames` (the tenant, the API, the reason):
 * the Kafka listener's and Produce's per-tenant counters, made the one way.
 */
export function labelledCounter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [registry] });
}
