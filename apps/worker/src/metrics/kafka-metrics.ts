import { apiKeyName } from "@lastword/kafka-protocol";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** How a request ended: answered, deliberately not answered (acks=0), or the connection closed on it. */
export type KafkaOutcome = "ok" | "no_answer" | "closed";

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
  openConnections(): number;
  pendingResponseBytes(): number;
  /** Monotonic: the principals' Postgres lookups so far. */
  credentialLoads(): number;
}

/**
 * The Kafka listener's Prometheus metrics, in the worker's registry (served at /metrics). Counters
 * carry the tenant; the latency histogram does not, since each tenant would multiply its series by
 * the bucket count — per-tenant latency is the request counter's rate next to the histogram's.
 */
export class KafkaListenerMetrics {
  readonly requests: Counter<"api" | "version" | "outcome" | "tenant">;
  readonly requestSeconds: Histogram<"api" | "version" | "outcome">;
  readonly bytesIn: Counter<"api" | "tenant">;
  readonly bytesOut: Counter<"api" | "tenant">;
  readonly throttleSeconds: Counter<"api" | "tenant">;
  readonly refusedConnections: Counter<"reason">;
  readonly openConnections: Gauge;
  readonly pendingResponseBytes: Gauge;
  readonly credentialLoads: Counter;

  constructor(registry: Registry, sources: KafkaListenerSources) {
    const registers = [registry];
    this.requests = new Counter({
      name: "lastword_kafka_requests_total",
      help: "Kafka requests served by API, version, outcome and tenant",
      labelNames: ["api", "version", "outcome", "tenant"] as const,
      registers,
    });
    this.requestSeconds = new Histogram({
      name: "lastword_kafka_request_seconds",
      help: "Kafka request latency (read to answer written) by API, version and outcome",
      labelNames: ["api", "version", "outcome"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    const perApiAndTenant = (name: string, help: string) =>
      new Counter({ name, help, labelNames: ["api", "tenant"] as const, registers });
    this.bytesIn = perApiAndTenant(
      "lastword_kafka_request_bytes_total",
      "Bytes of Kafka request frames received, by API and tenant",
    );
    this.bytesOut = perApiAndTenant(
      "lastword_kafka_response_bytes_total",
      "Bytes of Kafka response frames sent, by API and tenant",
    );
    this.throttleSeconds = perApiAndTenant(
      "lastword_kafka_throttle_seconds_total",
      "Throttle time answered (and the connection muted for) over quota, by API and tenant",
    );
    this.refusedConnections = new Counter({
      name: "lastword_kafka_refused_connections_total",
      help: "Connections refused by a limit (worker: open connections; key: open connections per API key)",
      labelNames: ["reason"] as const,
      registers,
    });
    this.openConnections = new Gauge({
      name: "lastword_kafka_open_connections",
      help: "Open connections to this worker's Kafka listener",
      registers,
      collect: () => this.openConnections.set(sources.openConnections()),
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
    this.bytesIn.inc({ api, tenant: sample.tenantId }, sample.bytesIn);
    if (sample.bytesOut > 0) this.bytesOut.inc({ api, tenant: sample.tenantId }, sample.bytesOut);
  }

  throttled(apiKey: number, tenantId: string, ms: number): void {
    if (ms > 0) this.throttleSeconds.inc({ api: apiKeyName(apiKey), tenant: tenantId }, ms / 1000);
  }
}
