import { Gauge, type Registry } from "prom-client";

/** One transaction this worker coordinates that is open (Ongoing, or Prepare* being completed). */
export interface OpenTransactionSample {
  tenantId: string;
  /** When it began, on the worker's clock (null: no start recorded). */
  startedAt: number | null;
}

/** What the transaction gauges read at each scrape (the coordinator's rows, the worker's clock). */
export interface TxnMetricSources {
  openTransactions(): Promise<OpenTransactionSample[]>;
  now(): number;
}

/** Per tenant: its open transactions, and the age (s) of its oldest. */
interface PerTenant {
  count: Map<string, number>;
  oldest: Map<string, number>;
}

/**
 * The transaction coordinator's gauges (issue 32), per tenant, for the transactions this worker
 * coordinates: how many are open, and how old the oldest is — an abandoned one holds its
 * partitions' last stable offset (and every read_committed reader) back until its timeout.
 * Read from the database at scrape time, so a worker that just took the ids over reports them.
 */
export function registerTxnMetrics(registry: Registry, sources: TxnMetricSources): void {
  const registers = [registry];
  // The registry collects its metrics concurrently: each gauge reads for itself.
  const perTenant = async (): Promise<PerTenant> => {
    const samples = await sources.openTransactions();
    const now = sources.now();
    const count = new Map<string, number>();
    const oldest = new Map<string, number>();
    for (const s of samples) {
      count.set(s.tenantId, (count.get(s.tenantId) ?? 0) + 1);
      if (s.startedAt !== null) {
        oldest.set(s.tenantId, Math.max(oldest.get(s.tenantId) ?? 0, (now - s.startedAt) / 1000));
      }
    }
    return { count, oldest };
  };
  // A tenant whose last transaction ended drops out rather than lingering at 0 (reset first).
  const perTenantGauge = (name: string, help: string, pick: (t: PerTenant) => Map<string, number>) =>
    new Gauge({
      name,
      help,
      labelNames: ["tenant"] as const,
      registers,
      async collect() {
        const values = pick(await perTenant());
        this.reset();
        for (const [tenant, value] of values) this.set({ tenant }, value);
      },
    });
  perTenantGauge(
    "lastword_kafka_open_transactions",
    "Open Kafka transactions (Ongoing or being completed) this worker coordinates, by tenant",
    (t) => t.count,
  );
  perTenantGauge(
    "lastword_kafka_oldest_open_transaction_age_seconds",
    "Age of the oldest open Kafka transaction this worker coordinates, by tenant (on the worker's clock)",
    (t) => t.oldest,
  );
}
