import type { Logger } from "../logger";
import type { KafkaListenerMetrics } from "../metrics/kafka-metrics";
import type { KafkaPrincipal } from "./kafka-principals";
import { LogSampler } from "./log-sampler";
import { WindowCounter } from "./window-counter";

/**
 * The listener's limits on connections, as Kafka and Confluent Cloud keep one client from taking a
 * broker's sockets from the others. Each has a WORKER_KAFKA_* setting (env.ts) and a row in the
 * worker README's configuration table.
 */
export interface ConnectionLimits {
  /** Open connections, authenticated or not (Kafka's max.connections). */
  maxConnections: number;
  /** Authenticated connections one API key may hold. */
  maxConnectionsPerKey: number;
  /** Connections not yet authenticated, worker-wide; past it the oldest is closed to make room. */
  maxUnauthenticated: number;
  /** Connections not yet authenticated from one address (Kafka's max.connections.per.ip, for these). */
  maxUnauthenticatedPerIp: number;
  /** A connection that has not completed SASL by then is closed. */
  authenticationTimeoutMs: number;
  /** Kafka's connections.max.idle.ms: a connection that neither sent nor was answered for this long is closed. */
  idleMs: number;
  /** Failed SASL logins one address may make per FAILED_LOGIN_WINDOW_MS; further attempts are refused unchecked. */
  failedLoginsPerIp: number;
  /** Failed SASL logins one key id may see per window; further failures on it are answered only after `failedLoginDelayMs`. */
  failedLoginsPerKey: number;
  failedLoginDelayMs: number;
  /**
   * A login refused by a connection limit (the key's, the tenant's count or creation rate) is
   * answered after this (Kafka throttles connection creation rather than refusing at once): a client
   * looping on reconnects makes one attempt per delay per socket instead of costing the listener a
   * connection's accept, handshake and close at the speed of the loopback.
   */
  refusedLoginDelayMs: number;
  /** Kafka's socket.request.max.bytes: a larger frame closes the connection. */
  socketRequestMaxBytes: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 10_000,
  maxConnectionsPerKey: 1_000,
  maxUnauthenticated: 1_000,
  maxUnauthenticatedPerIp: 50,
  // kafkajs's own authenticationTimeout is 10 s; librdkafka's socket timeout 60 s.
  authenticationTimeoutMs: 10_000,
  idleMs: 600_000,
  failedLoginsPerIp: 30,
  failedLoginsPerKey: 10,
  failedLoginDelayMs: 2_000,
  refusedLoginDelayMs: 1_000,
  socketRequestMaxBytes: 100 * 1024 * 1024,
};

/** The window failed logins are counted in, per address and per key id. */
export const FAILED_LOGIN_WINDOW_MS = 60_000;
/** Addresses and key ids whose failures are remembered (oldest forgotten first). */
const FAILED_LOGIN_KEYS = 100_000;

/** At most one log line per refusal reason per this long. */
const REFUSAL_LOG_INTERVAL_MS = 1_000;

/** What the guard needs of a connection. */
export interface GuardedConnection {
  readonly remoteAddress: string;
  readonly principal: KafkaPrincipal | null;
  close(): void;
}

/** The tenant's own connection limits (its quota), per worker. */
export interface TenantConnectionQuota {
  maxConnectionsPerWorker: number;
  connectionsPerSecond: number;
}

export type RefusalReason =
  | "worker"
  | "key"
  | "ip"
  | "tenant"
  | "tenant_rate"
  | "login_throttled"
  | "evicted"
  | "idle"
  | "auth_timeout"
  | "frame_too_large";

export interface ConnectionGuardDeps {
  metrics: KafkaListenerMetrics;
  logger: Logger;
  tenantQuota(tenantId: string): Promise<TenantConnectionQuota>;
  now(): number;
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}

/**
 * Admission of connections and logins on one listener: which sockets it takes, which logins it
 * lets through, and whose connections count against which cap. Unauthenticated sockets never lock
 * a tenant out: they are capped per address, and when the listener is full the oldest of them, from
 * the address holding most, is closed to make room (a real client completes SASL in milliseconds
 * from one socket; an idle flood is what goes).
 */
export class ConnectionGuard {
  readonly limits: ConnectionLimits;
  readonly #deps: ConnectionGuardDeps;
  /** By address, each in the order accepted: the one evicted is the oldest of the address holding most. */
  readonly #unauthenticated = new Map<string, Set<GuardedConnection>>();
  #unauthenticatedCount = 0;
  readonly #authenticated = new Set<GuardedConnection>();
  readonly #byKey = new Map<string, number>();
  readonly #byTenant = new Map<string, number>();
  readonly #failedByIp: WindowCounter;
  readonly #failedByKey: WindowCounter;
  readonly #createdByTenant: WindowCounter;
  readonly #logged: LogSampler<RefusalReason>;

  constructor(limits: ConnectionLimits, deps: ConnectionGuardDeps) {
    this.limits = limits;
    this.#deps = deps;
    const failed = { windowMs: FAILED_LOGIN_WINDOW_MS, maxKeys: FAILED_LOGIN_KEYS, now: deps.now };
    this.#failedByIp = new WindowCounter(failed);
    this.#failedByKey = new WindowCounter(failed);
    this.#createdByTenant = new WindowCounter({ windowMs: 1000, maxKeys: FAILED_LOGIN_KEYS, now: deps.now });
    this.#logged = new LogSampler(REFUSAL_LOG_INTERVAL_MS, deps.now);
  }

  get openConnections(): number {
    return this.#unauthenticatedCount + this.#authenticated.size;
  }

  /** Authenticated connections per tenant, for the open-connections gauge. */
  tenantConnections(): ReadonlyMap<string, number> {
    return this.#byTenant;
  }

  /** Whether a new socket from `ip` may be taken; may close the oldest unauthenticated one to make room. */
  accept(ip: string): boolean {
    if ((this.#unauthenticated.get(ip)?.size ?? 0) >= this.limits.maxUnauthenticatedPerIp) {
      this.#refused("ip", "", { ip, limit: this.limits.maxUnauthenticatedPerIp });
      return false;
    }
    const full =
      this.openConnections >= this.limits.maxConnections ||
      this.#unauthenticatedCount >= this.limits.maxUnauthenticated;
    if (!full) return true;
    const oldest = this.#evictable();
    if (oldest === undefined) {
      this.#refused("worker", "", { ip, limit: this.limits.maxConnections });
      return false;
    }
    this.#refused("evicted", "", { ip: oldest.remoteAddress });
    oldest.close();
    return true;
  }

  // A flood holds many sockets per address; a tenant logging in holds one: taking from the address
  // with most keeps a flood from evicting the logins it competes with.
  #evictable(): GuardedConnection | undefined {
    let most: Set<GuardedConnection> | undefined;
    for (const held of this.#unauthenticated.values()) if (!most || held.size > most.size) most = held;
    return most?.values().next().value;
  }

  opened(connection: GuardedConnection): void {
    const ip = connection.remoteAddress;
    const held = this.#unauthenticated.get(ip) ?? new Set<GuardedConnection>();
    this.#unauthenticated.set(ip, held);
    held.add(connection);
    this.#unauthenticatedCount++;
  }

  /** Takes the connection out of the unauthenticated ones; false if it was not among them. */
  #leaveUnauthenticated(connection: GuardedConnection): boolean {
    const held = this.#unauthenticated.get(connection.remoteAddress);
    if (!held?.delete(connection)) return false;
    if (held.size === 0) this.#unauthenticated.delete(connection.remoteAddress);
    this.#unauthenticatedCount--;
    return true;
  }

  closed(connection: GuardedConnection): void {
    if (this.#leaveUnauthenticated(connection)) return;
    if (!this.#authenticated.delete(connection) || !connection.principal) return;
    bump(this.#byKey, connection.principal.keyId, -1);
    bump(this.#byTenant, connection.principal.tenantId, -1);
  }

  /** Counts a closing for a reason of the connection's own (idle, authentication timeout, oversized frame). */
  closing(reason: RefusalReason, connection: GuardedConnection, detail: Record<string, unknown> = {}): void {
    this.#refused(reason, connection.principal?.tenantId ?? "", { ip: connection.remoteAddress, ...detail });
  }

  /** Null if a login from `ip` may be tried; else the message it is refused with, unchecked. */
  loginRefusal(ip: string): string | null {
    const limit = this.limits.failedLoginsPerIp;
    if (this.#failedByIp.count(ip) < limit) return null;
    this.#refused("login_throttled", "", { ip, limit });
    const seconds = Math.ceil(this.#failedByIp.msLeft() / 1000);
    return `too many failed logins from this address (limit: ${limit} per minute, failedLoginsPerIp); retry in ${seconds} s`;
  }

  /** Records a failed login; the milliseconds to hold its answer (0 unless the key id is being guessed at). */
  loginFailed(ip: string, keyId: string | null): number {
    this.#failedByIp.add(ip);
    if (keyId === null || this.#failedByKey.add(keyId) <= this.limits.failedLoginsPerKey) return 0;
    this.#refused("login_throttled", "", { ip, keyId, limit: this.limits.failedLoginsPerKey });
    return this.limits.failedLoginDelayMs;
  }

  /**
   * Asked once SASL succeeded: null admits the connection (it then counts against its key and
   * tenant), a message refuses it, naming the limit (the client gets it as an authentication error).
   */
  async admit(connection: GuardedConnection, principal: KafkaPrincipal): Promise<string | null> {
    const quota = await this.#deps.tenantQuota(principal.tenantId);
    // Closed while its tenant's quota was read: nothing to admit (it counts nowhere any more).
    if (!this.#unauthenticated.get(connection.remoteAddress)?.has(connection))
      return "the connection closed during authentication";
    const { keyId, tenantId } = principal;
    const byKey = this.#byKey.get(keyId) ?? 0;
    if (byKey >= this.limits.maxConnectionsPerKey) {
      this.#refused("key", tenantId, { keyId, limit: this.limits.maxConnectionsPerKey });
      return `this API key already holds ${byKey} open connections to this broker, its limit (maxConnectionsPerKey ${this.limits.maxConnectionsPerKey}); close some before opening more`;
    }
    const byTenant = this.#byTenant.get(tenantId) ?? 0;
    if (byTenant >= quota.maxConnectionsPerWorker) {
      this.#refused("tenant", tenantId, { limit: quota.maxConnectionsPerWorker });
      return `the tenant already holds ${byTenant} open connections to this broker, its quota (maxConnectionsPerWorker ${quota.maxConnectionsPerWorker}); close some before opening more`;
    }
    if (this.#createdByTenant.add(tenantId) > quota.connectionsPerSecond) {
      this.#refused("tenant_rate", tenantId, { limit: quota.connectionsPerSecond });
      return `the tenant opened more than ${quota.connectionsPerSecond} connections to this broker in the last second, its quota (connectionsPerSecond); retry with back-off`;
    }
    this.#leaveUnauthenticated(connection);
    this.#authenticated.add(connection);
    bump(this.#byKey, keyId, 1);
    bump(this.#byTenant, tenantId, 1);
    return null;
  }

  // Every refusal is counted; the log gets one line per reason and second, with how many it stands
  // for, so a flood of refusals does not become a flood of log lines.
  #refused(reason: RefusalReason, tenantId: string, detail: Record<string, unknown>): void {
    this.#deps.metrics.refusedConnections.inc({ reason, tenant: tenantId });
    const suppressed = this.#logged.take(reason);
    if (suppressed === null) return;
    this.#deps.logger.warn(
      { reason, tenantId, ...detail, alsoRefusedSinceLastLine: suppressed },
      `kafka connection refused or closed: ${reason}`,
    );
  }
}
