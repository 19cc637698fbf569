import { apiKeyName } from "@lastword/kafka-protocol";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { labelledCounter } from "./labelled-counter";

/**
 * How a request ended: answered, answered with a Kafka error code (at the top or for any topic,
 * partition or resource), deliberately not answered (acks=0), or the connection closed on it.
 */
export type KafkaOutcome = "ok" | "error" | "no_answer" | "closed";

/**
 * Whether a response body carries a non-zero `errorCode` anywhere: at its top level or in any
 * topic, partition, resource or member entry (record bytes are not looked into).
 */
export function answeredWithError(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(answeredWithError);
  if (body === null || typeof body !== "object" || Buffer.isBuffer(body)) return false;
  for (const [name, value] of Object.entries(body)) {
    if (name === "errorCode" ? typeof value === "number" && value !== 0 : answeredWithError(value))
      return true;
  }
  return false;
}

/** One request as the listener saw it, for `KafkaListenerMetrics.request`. */
export interface KafkaRequestSample {
  apiKey: number;
  version: number;
  outcome: KafkaOutcome;
  /** "" before authentication (ApiVersions, SASL). */
  tenantId: string;
  seconds: number;
  bytesIn: number;
  bytesOut: number;
}

/** What the listener's gauges and collected counters read when /metrics is scraped. */
export interface KafkaListenerSources {
  /** Open connections per tenant ("" for those not authenticated yet). */
  openConnections(): ReadonlyMap<string, number>;
  pendingResponseBytes(): number;
  /** Monotonic: the principals' Postgres lookups so far. */
  credentialLoads(): number;
}

/**
 * The Kafka listener's Prometheus metrics, in the worker's registry (served at /metrics). Counters
 * carry the tenant; the latency histogram does not, since each tenant would multiply its series by
 * the bucket count — per-tenant latency is the request counter's rate next to the histogram's.
 * `openConnections` answers the open connections per tenant ("" for those not authenticated yet).
 */
export class KafkaListenerMetrics {
  readonly requests: Counter<"api" | "version" | "outcome" | "tenant">;
  readonly requestSeconds: Histogram<"api" | "version" | "outcome">;
  readonly bytesIn: Counter<"api" | "version" | "tenant">;
  readonly bytesOut: Counter<"api" | "version" | "tenant">;
  readonly throttleSeconds: Counter<"api" | "version" | "tenant" | "quota">;
  readonly refusedConnections: Counter<"reason" | "tenant">;
  readonly openConnections: Gauge<"tenant">;
  readonly pendingResponseBytes: Gauge;
  readonly credentialLoads: Counter;

  constructor(registry: Registry, sources: KafkaListenerSources) {
    const registers = [registry];
    this.requests = labelledCounter(
      registry,
      "lastword_kafka_requests_total",
      "Kafka requests served by API, version, outcome and tenant",
      ["api", "version", "outcome", "tenant"],
    );
    this.requestSeconds = new Histogram({
      name: "lastword_kafka_request_seconds",
      help: "Kafka request latency (read to answer written) by API, version and outcome",
      labelNames: ["api", "version", "outcome"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    const perApiAndTenant = (name: string, help: string) =>
      labelledCounter(registry, name, help, ["api", "version", "tenant"]);
    this.bytesIn = perApiAndTenant(
      "lastword_kafka_request_bytes_total",
      "Bytes of Kafka request frames received, by API, version and tenant",
    );
    this.bytesOut = perApiAndTenant(
      "lastword_kafka_response_bytes_total",
      "Bytes of Kafka response frames sent, by API, version and tenant",
    );
    this.throttleSeconds = labelledCounter(
      registry,
      "lastword_kafka_throttle_seconds_total",
      "Throttle time answered (and the connection muted for) over a quota, by API, version, tenant and the quota (produceBytesPerSecond, requestTimeMsPerSecond, fetchBytesPerSecond)",
      ["api", "version", "tenant", "quota"],
    );
    this.refusedConnections = labelledCounter(
      registry,
      "lastword_kafka_refused_connections_total",
      "Connections and logins refused or closed by a limit, by reason (connection-guard.ts RefusalReason) and tenant (empty before authentication)",
      ["reason", "tenant"],
    );
    this.openConnections = new Gauge({
      name: "lastword_kafka_open_connections",
      help: "Open connections to this worker's Kafka listener by tenant (empty before authentication)",
      labelNames: ["tenant"] as const,
      registers,
      collect: () => {
        // A tenant whose last connection closed drops out rather than lingering at 0.
        this.openConnections.reset();
        for (const [tenant, count] of sources.openConnections()) this.openConnections.set({ tenant }, count);
      },
    });
    this.pendingResponseBytes = new Gauge({
      name: "lastword_kafka_pending_response_bytes",
      help: "Answer bytes written for Kafka clients that their sockets have not taken yet (slow readers)",
      registers,
      collect: () => this.pendingResponseBytes.set(sources.pendingResponseBytes()),
    });
    let loadsReported = 0;
    this.credentialLoads = new Counter({
      name: "lastword_kafka_credential_loads_total",
      help: "API keys looked up in Postgres for SASL (verification cache misses)",
      registers,
      collect: () => {
        const loads = sources.credentialLoads();
        this.credentialLoads.inc(loads - loadsReported);
        loadsReported = loads;
      },
    });
  }

  request(sample: KafkaRequestSample): void {
    const api = apiKeyName(sample.apiKey);
    const version = String(sample.version);
    this.requests.inc({ api, version, outcome: sample.outcome, tenant: sample.tenantId });
    this.requestSeconds.observe({ api, version, outcome: sample.outcome }, sample.seconds);
    const labels = { api, version, tenant: sample.tenantId };
    this.bytesIn.inc(labels, sample.bytesIn);
    if (sample.bytesOut > 0) this.bytesOut.inc(labels, sample.bytesOut);
  }

  throttled(apiKey: number, version: number, tenantId: string, quota: string, ms: number): void {
    if (ms <= 0) return;
    this.throttleSeconds.inc(
      { api: apiKeyName(apiKey), version: String(version), tenant: tenantId, quota },
      ms / 1000,
    );
  }
}
