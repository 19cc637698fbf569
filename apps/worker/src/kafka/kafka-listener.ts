import { readFileSync } from "node:fs";
import { createServer as createTcpServer, isIP, type Server, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { createServer as createTlsServer } from "node:tls";
import { tenantQuota } from "@lastword/api/tenant-quota";
import type { Registry } from "prom-client";
import { KafkaListenerMetrics } from "../metrics/kafka-metrics";
import { ConnectionGuard, type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "./connection-guard";
import { KafkaConnection } from "./kafka-connection";
import type { KafkaBrokerContext } from "./kafka-context";
import type { KafkaPrincipals } from "./kafka-principals";
import { TenantRates } from "./tenant-rates";

export interface KafkaListenerConfig {
  host: string;
  port: number;
  /** PEM files: with both, the listener speaks TLS (SASL_SSL); without, SASL_PLAINTEXT. */
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Plaintext on an address other than loopback must be asked for: secrets would cross the network. */
  allowPlaintext?: boolean;
  /** The listener's connection limits (connection-guard.ts); each unset one takes its default. */
  limits?: Partial<ConnectionLimits>;
  /**
   * Called with each request a connection decoded, in the order it serves them; `connection`
   * numbers this listener's connections from 1. For tests that check what a client sends on which
   * socket (SASL order, retries), without reading logs.
   */
  onRequest?(request: { connection: number; apiKey: number; version: number }): void;
}

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
  /** Authenticated connections open now, per tenant id. */
  tenantConnections(): ReadonlyMap<string, number>;
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
  let guard: ConnectionGuard | null = null;
  const metrics = new KafkaListenerMetrics(registry, {
    openConnections: () => {
      const byTenant = new Map(guard?.tenantConnections());
      const authenticated = [...byTenant.values()].reduce((a, b) => a + b, 0);
      byTenant.set("", open.size - authenticated);
      return byTenant;
    },
    pendingResponseBytes: () => {
      let bytes = 0;
      for (const connection of open) bytes += connection.pendingResponseBytes;
      return bytes;
    },
    credentialLoads: () => principals.credentialLoads,
  });
  guard = new ConnectionGuard(
    { ...DEFAULT_CONNECTION_LIMITS, ...config.limits },
    {
      metrics,
      logger: ctx.logger,
      // Wall time, not the worker's clock: a rate window must pass in real seconds even when a test
      // holds the worker's clock still (as lease renewals do).
      now: () => performance.now(),
      tenantQuota: (tenantId) => tenantQuota({ prisma: ctx.prisma, clock: ctx.clock }, tenantId),
    },
  );
  const connectionGuard = guard;
  const rates = new TenantRates({
    logger: ctx.logger,
    now: () => performance.now(),
    tenantQuota: (tenantId) => tenantQuota({ prisma: ctx.prisma, clock: ctx.clock }, tenantId),
  });
  let accepted = 0;
  const accept = (socket: Socket) => {
    if (!connectionGuard.accept(socket.remoteAddress ?? "")) {
      socket.destroy();
      return;
    }
    const id = ++accepted;
    const { onRequest } = config;
    const connection = new KafkaConnection(socket, {
      ctx,
      principals,
      metrics,
      guard: connectionGuard,
      rates,
      onClose: (c) => {
        open.delete(c);
        connectionGuard.closed(c);
      },
      ...(onRequest && { onRequest: (apiKey, version) => onRequest({ connection: id, apiKey, version }) }),
    });
    open.add(connection);
    connectionGuard.opened(connection);
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
    tenantConnections: () => new Map(guard?.tenantConnections()),
    sweep,
    async close() {
      clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of open) c.close();
      await closed;
      await Promise.all([ctx.quotas?.close(), ctx.sightings.close(), ctx.inflation.close()]);
    },
  };
}
