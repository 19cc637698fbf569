import { readFileSync } from "node:fs";
import { createServer as createTcpServer, isIP, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import type { Registry } from "prom-client";
import { KafkaListenerMetrics } from "../metrics/kafka-metrics";
import { KafkaConnection } from "./kafka-connection";
import type { KafkaBrokerContext } from "./kafka-context";
import type { KafkaPrincipal, KafkaPrincipals } from "./kafka-principals";

export interface KafkaListenerConfig {
  host: string;
  port: number;
  /** PEM files: with both, the listener speaks TLS (SASL_SSL); without, SASL_PLAINTEXT. */
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Plaintext on an address other than loopback must be asked for: secrets would cross the network. */
  allowPlaintext?: boolean;
  /** Open connections this listener accepts; one more is closed at once (Kafka's max.connections). */
  maxConnections?: number;
  /** Authenticated connections one API key may hold here; one more is refused at SASL. */
  maxConnectionsPerKey?: number;
  /**
   * Called with each request a connection decoded, in the order it serves them; `connection`
   * numbers this listener's connections from 1. For tests that check what a client sends on which
   * socket (SASL order, retries), without reading logs.
   */
  onRequest?(request: { connection: number; apiKey: number; version: number }): void;
}

export const DEFAULT_MAX_CONNECTIONS = 10_000;
export const DEFAULT_MAX_CONNECTIONS_PER_KEY = 1_000;

/**
 * How often open connections' keys are checked: a revoked or expired key's connections (also those
 * of a removed member's keys) close within this, and a creator's role change or a rule change
 * reaches the key's open connections within it.
 */
export const REVOCATION_SWEEP_MS = 2_000;

export interface KafkaListener {
  /** The address actually bound. */
  host: string;
  port: number;
  tls: boolean;
  connections(): readonly KafkaConnection[];
  /**
   * Closes connections whose key was revoked or expired and gives the others their key's current
   * rights (also run every REVOCATION_SWEEP_MS).
   */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}

/** The Kafka listener of a worker: every worker is a broker for the partitions it leads. */
export async function startKafkaListener(
  ctx: KafkaBrokerContext,
  principals: KafkaPrincipals,
  config: KafkaListenerConfig,
  registry: Registry,
): Promise<KafkaListener> {
  const tls = Boolean(config.tlsCertFile && config.tlsKeyFile);
  if (!tls && !config.allowPlaintext && !isLoopback(config.host)) {
    throw new Error(
      `the Kafka listener would accept plaintext SASL on ${config.host}: configure a TLS certificate and key, or allow plaintext explicitly`,
    );
  }
  const open = new Set<KafkaConnection>();
  const metrics = new KafkaListenerMetrics(registry, {
    openConnections: () => {
      const byTenant = new Map<string, number>();
      for (const c of open) {
        const tenant = c.principal?.tenantId ?? "";
        byTenant.set(tenant, (byTenant.get(tenant) ?? 0) + 1);
      }
      return byTenant;
    },
    pendingResponseBytes: () => {
      let bytes = 0;
      for (const connection of open) bytes += connection.pendingResponseBytes;
      return bytes;
    },
    credentialLoads: () => principals.credentialLoads,
  });
  let accepted = 0;
  const maxConnections = config.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const maxPerKey = config.maxConnectionsPerKey ?? DEFAULT_MAX_CONNECTIONS_PER_KEY;
  const admit = (connection: KafkaConnection, principal: KafkaPrincipal): string | null => {
    let held = 0;
    for (const c of open) if (c !== connection && c.principal?.keyId === principal.keyId) held++;
    if (held < maxPerKey) return null;
    metrics.refusedConnections.inc({ reason: "key" });
    ctx.logger.warn(
      { keyId: principal.keyId, tenantId: principal.tenantId, limit: maxPerKey },
      "kafka connection refused: the API key holds its limit of open connections to this worker",
    );
    return `this API key already holds ${held} open connections to this broker, its limit; close some before opening more`;
  };
  const accept = (socket: Socket) => {
    if (open.size >= maxConnections) {
      metrics.refusedConnections.inc({ reason: "worker" });
      ctx.logger.warn(
        { remote: socket.remoteAddress, limit: maxConnections },
        "kafka connection refused: this worker's listener holds its limit of open connections",
      );
      socket.destroy();
      return;
    }
    const id = ++accepted;
    const { onRequest } = config;
    const connection = new KafkaConnection(socket, {
      ctx,
      principals,
      metrics,
      admit,
      onClose: (c) => open.delete(c),
      ...(onRequest && { onRequest: (apiKey, version) => onRequest({ connection: id, apiKey, version }) }),
    });
    open.add(connection);
  };
  const server: Server = tls
    ? createTlsServer(
        { cert: readFileSync(config.tlsCertFile!), key: readFileSync(config.tlsKeyFile!) },
        accept,
      )
    : createTcpServer(accept);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const bound = server.address();
  if (!bound || typeof bound === "string") throw new Error("the Kafka listener has no TCP address");

  const sweep = async () => {
    const authenticated = [...open].filter((c) => c.principal !== null);
    if (authenticated.length === 0) return;
    const grants = await principals.refresh([...new Set(authenticated.map((c) => c.principal!.keyId))]);
    for (const c of authenticated) {
      const grant = grants.get(c.principal!.keyId);
      if (grant) c.principal!.grant = grant;
      else c.close();
    }
  };
  const timer = setInterval(() => {
    sweep().catch((error: unknown) => ctx.logger.warn({ err: error }, "kafka key sweep failed"));
  }, REVOCATION_SWEEP_MS);
  timer.unref();

  return {
    host: bound.address,
    port: bound.port,
    tls,
    connections: () => [...open],
    sweep,
    async close() {
      clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of open) c.close();
      await closed;
      await Promise.all([ctx.quotas?.close(), ctx.sightings.close()]);
    },
  };
}
