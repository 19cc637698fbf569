import { ErrorCode } from "@lastword/kafka-protocol";
import { BATCH_HEADER_BYTES, batchCompression, batchField } from "@lastword/record-batch";
import { type Counter, Gauge, type Registry } from "prom-client";
import type { InflatePool } from "../inflation/inflate-pool";
import { labelledCounter } from "../metrics/labelled-counter";

/** The tenant's limits on what its Produce requests may inflate to (its quota; rate-limit.service.ts). */
export interface InflationLimits {
  maxBatchInflatedBytes: number;
  maxRequestInflatedBytes: number;
  maxBatchRecords: number;
}

/**
 * A batch inspected and within the limits: its plain copy (null when it came plain; only its
 * skeleton, values emptied, when inspected without `values`), and its records' bytes.
 */
export interface InspectedBatch {
  plain: Buffer | null;
  recordsBytes: number;
}

export interface InflationRefusal {
  errorCode: number;
  message: string;
}

type LimitName = keyof InflationLimits | "corrupt" | "unsupported" | "busy";

/**
 * Produce's inflation, as Kafka's LogValidator inflates record by record and stops at the first
 * bad one: every compressed batch is inflated in the pool (never on the event loop), bounded while
 * it inflates by the tenant's maxBatchInflatedBytes and what is left of its maxRequestInflatedBytes,
 * so a bomb costs its sender at most its own limit of inflate work. Counted per tenant: bytes
 * inflated and batches refused, by the limit that refused them.
 */
export class ProduceInflation {
  readonly #pool: InflatePool;
  readonly #limits: (tenantId: string) => Promise<InflationLimits>;
  readonly inflatedBytes: Counter<"tenant">;
  readonly refusedBatches: Counter<"tenant" | "limit">;

  constructor(pool: InflatePool, registry: Registry, limits: (tenantId: string) => Promise<InflationLimits>) {
    this.#pool = pool;
    this.#limits = limits;
    this.inflatedBytes = labelledCounter(
      registry,
      "lastword_kafka_inflated_bytes_total",
      "Bytes the inflate pool decompressed for Produce, by tenant (a refused bomb counts what it inflated before it was stopped)",
      ["tenant"],
    );
    this.refusedBatches = labelledCounter(
      registry,
      "lastword_kafka_refused_batches_total",
      "Produce batches refused before they were appended, by tenant and the limit or defect that refused them",
      ["tenant", "limit"],
    );
    new Gauge({
      name: "lastword_inflate_pool_queued",
      help: "Batches waiting for an inflate thread",
      registers: [registry],
      collect() {
        this.set(pool.queued);
      },
    });
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  /** The inflation of one Produce request: its budget of inflated bytes, spent batch by batch. */
  async forRequest(tenantId: string): Promise<RequestInflation> {
    return new RequestInflation(this, this.#pool, tenantId, await this.#limits(tenantId));
  }

  refused(tenantId: string, limit: LimitName, errorCode: number, message: string): InflationRefusal {
    this.refusedBatches.inc({ tenant: tenantId, limit });
    return { errorCode, message };
  }
}

/** One request's batches, inspected one at a time so each sees what the earlier ones left of the budget. */
export class RequestInflation {
  readonly #owner: ProduceInflation;
  readonly #pool: InflatePool;
  readonly #tenantId: string;
  readonly #limits: InflationLimits;
  #left: number;
  #turn: Promise<unknown> = Promise.resolve();
  /** Bytes the request's batches hold inflated (headers included): what the produce quota counts. */
  chargedBytes = 0;
  /** Milliseconds pool threads spent inflating the request's batches (refused ones too). */
  threadMs = 0;

  constructor(owner: ProduceInflation, pool: InflatePool, tenantId: string, limits: InflationLimits) {
    this.#owner = owner;
    this.#pool = pool;
    this.#tenantId = tenantId;
    this.#limits = limits;
    this.#left = limits.maxRequestInflatedBytes;
  }

  /**
   * Checks one whole batch against the limits, inflating it in the pool when compressed. `values`
   * false: the caller reads the records' keys, offsets and timestamps only (a batch stored as sent),
   * so a compressed one comes back as its skeleton (`recordSkeleton`).
   */
  inspect(batch: Buffer, values = true): Promise<InspectedBatch | InflationRefusal> {
    const result = this.#turn.then(() => this.#inspect(batch, values));
    this.#turn = result.catch(() => undefined);
    return result;
  }

  async #inspect(batch: Buffer, values: boolean): Promise<InspectedBatch | InflationRefusal> {
    const { maxBatchRecords, maxBatchInflatedBytes, maxRequestInflatedBytes } = this.#limits;
    const records = batchField.recordCount(batch, 0);
    if (records > maxBatchRecords) {
      return this.#refused(
        "maxBatchRecords",
        ErrorCode.MESSAGE_TOO_LARGE,
        `the record batch holds ${records} records, more than the tenant's maxBatchRecords quota (${maxBatchRecords})`,
      );
    }
    if (batchCompression(batch, 0) === 0) return this.#spend(null, batch.length - BATCH_HEADER_BYTES);
    const bound = Math.min(maxBatchInflatedBytes, this.#left);
    const outcome = await this.#pool.inflate(this.#tenantId, batch, bound, values);
    this.#owner.inflatedBytes.inc({ tenant: this.#tenantId }, outcome.inflatedBytes);
    this.threadMs += outcome.threadMs;
    if (outcome.ok)
      return this.#spend(Buffer.from(outcome.plain.buffer, 0, outcome.plain.length), outcome.inflatedBytes);
    switch (outcome.kind) {
      case "limit":
        return bound < maxBatchInflatedBytes
          ? this.#refused(
              "maxRequestInflatedBytes",
              ErrorCode.RECORD_LIST_TOO_LARGE,
              `the request's record batches decompress to more than the tenant's maxRequestInflatedBytes quota (${maxRequestInflatedBytes} bytes); nothing of this batch was appended`,
            )
          : this.#refused(
              "maxBatchInflatedBytes",
              ErrorCode.MESSAGE_TOO_LARGE,
              `the record batch decompresses to more than the tenant's maxBatchInflatedBytes quota (${maxBatchInflatedBytes} bytes); nothing was appended`,
            );
      case "corrupt":
        return this.#refused("corrupt", ErrorCode.CORRUPT_MESSAGE, outcome.message);
      case "unsupported":
        return this.#refused("unsupported", ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, outcome.message);
      case "busy":
        return this.#refused("busy", ErrorCode.REQUEST_TIMED_OUT, outcome.message);
    }
  }

  #spend(plain: Buffer | null, recordsBytes: number): InspectedBatch | InflationRefusal {
    if (recordsBytes > this.#left) {
      return this.#refused(
        "maxRequestInflatedBytes",
        ErrorCode.RECORD_LIST_TOO_LARGE,
        `the request's record batches hold more than the tenant's maxRequestInflatedBytes quota (${this.#limits.maxRequestInflatedBytes} bytes); nothing of this batch was appended`,
      );
    }
    this.#left -= recordsBytes;
    this.chargedBytes += BATCH_HEADER_BYTES + recordsBytes;
    return { plain, recordsBytes };
  }

  #refused(limit: LimitName, errorCode: number, message: string): InflationRefusal {
    return this.#owner.refused(this.#tenantId, limit, errorCode, message);
  }
}
