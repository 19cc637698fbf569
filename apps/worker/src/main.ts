// The worker process: `node --import tsx apps/worker/src/main.ts`. Configuration comes from env.ts only.
import { openObjectStore, parseObjectStoreLocation } from "@lastword/object-store";
import type { ObjectStorageTimings } from "./durability/object-storage";
import { DEV_INTERNAL_SECRET, readWorkerEnv, type WorkerEnv } from "./env";
import { partitionLogOpener } from "./hosting/log-opener";
import { TestFaults } from "./kafka/test-faults";
import { createLogger } from "./logger";
import { startWorker } from "./worker";

async function main(): Promise<void> {
  const env = readWorkerEnv();
  const logger = createLogger(env.WORKER_ID, env.LOG_LEVEL);
  if (!env.LASTWORD_INTERNAL_SECRET) {
    logger.warn(
      "LASTWORD_INTERNAL_SECRET is not set; using the development secret (never do this in production)",
    );
  }
  // Listening before the worker starts: it logs "worker ready" from inside startWorker, and a
  // SIGTERM right after that line must still stop it gracefully (release leases, exit 0).
  let stopping = false;
  let stop: (() => Promise<void>) | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "worker stopping");
    if (stop) void stop().then(() => process.exit(0));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const objectStore = await openConfiguredObjectStore(env);
  if (objectStore) logger.info({ kind: objectStore.kind }, "partitions are durable in object storage");
  const worker = await startWorker({
    ...(objectStore && { objectStore, objectTimings: objectTimingsOf(env) }),
    databaseUrl: env.DATABASE_URL,
    dataDir: env.LASTWORD_DATA_DIR,
    secret: env.LASTWORD_INTERNAL_SECRET ?? DEV_INTERNAL_SECRET,
    openLog: partitionLogOpener({
      dedupeBufferBytes: Math.floor(env.WORKER_DEDUPE_BUFFER_BYTES / env.WORKER_CLEANER_THREADS),
    }),
    workerId: env.WORKER_ID,
    host: env.WORKER_DATAPLANE_HOST,
    advertisedHost: env.WORKER_ADVERTISED_HOST,
    port: env.WORKER_DATAPLANE_PORT,
    leaseTtlMs: env.WORKER_LEASE_TTL_MS,
    kafka: {
      host: env.WORKER_KAFKA_HOST,
      port: env.WORKER_KAFKA_PORT,
      advertisedHost: env.WORKER_KAFKA_ADVERTISED_HOST,
      tlsCertFile: env.WORKER_KAFKA_TLS_CERT_FILE,
      tlsKeyFile: env.WORKER_KAFKA_TLS_KEY_FILE,
      allowPlaintext: env.WORKER_KAFKA_ALLOW_PLAINTEXT,
      limits: {
        maxConnections: env.WORKER_KAFKA_MAX_CONNECTIONS,
        maxConnectionsPerKey: env.WORKER_KAFKA_MAX_CONNECTIONS_PER_KEY,
        maxUnauthenticated: env.WORKER_KAFKA_MAX_UNAUTHENTICATED,
        maxUnauthenticatedPerIp: env.WORKER_KAFKA_MAX_UNAUTHENTICATED_PER_IP,
        authenticationTimeoutMs: env.WORKER_KAFKA_AUTHENTICATION_TIMEOUT_MS,
        idleMs: env.WORKER_KAFKA_CONNECTIONS_MAX_IDLE_MS,
        failedLoginsPerIp: env.WORKER_KAFKA_FAILED_LOGINS_PER_IP,
        failedLoginsPerKey: env.WORKER_KAFKA_FAILED_LOGINS_PER_KEY,
        failedLoginDelayMs: env.WORKER_KAFKA_FAILED_LOGIN_DELAY_MS,
        refusedLoginDelayMs: env.WORKER_KAFKA_REFUSED_LOGIN_DELAY_MS,
        socketRequestMaxBytes: env.WORKER_KAFKA_SOCKET_REQUEST_MAX_BYTES,
      },
      groups: { initialRebalanceDelayMs: env.WORKER_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS },
      inflatePool: {
        ...(env.WORKER_INFLATE_THREADS > 0 && { threads: env.WORKER_INFLATE_THREADS }),
        maxQueue: env.WORKER_INFLATE_QUEUE,
      },
      ...(env.WORKER_KAFKA_TEST_FAULTS ? { testFaults: new TestFaults(env.WORKER_KAFKA_TEST_FAULTS) } : {}),
      // The same counters as the web's REST produce admission: one produce budget per tenant.
      quotas: { redisUrl: env.REDIS_URL, redisPrefix: env.REDIS_PREFIX },
    },
    logger,
    ...(env.LASTWORD_FAULT_POINT && { faultPoint: env.LASTWORD_FAULT_POINT }),
    scheduling:
      env.WORKER_SCHEDULING === "off"
        ? undefined
        : {
            redisUrl: env.REDIS_URL,
            redisPrefix: env.REDIS_PREFIX,
            tickMs: env.WORKER_SCHEDULER_TICK_MS,
            cleanerThreads: env.WORKER_CLEANER_THREADS,
          },
  });
  stop = () => worker.stop();
  if (stopping) await stop().then(() => process.exit(0));
}

function objectTimingsOf(env: WorkerEnv): ObjectStorageTimings {
  return {
    commitWindowMs: env.WORKER_COMMIT_WINDOW_MS,
    tiering: { consolidateAfterMs: env.WORKER_CONSOLIDATE_AFTER_MS },
    superseded: { graceMs: env.WORKER_OBJECT_GRACE_MS },
  };
}

function openConfiguredObjectStore(env: WorkerEnv) {
  if (!env.LASTWORD_OBJECT_STORE) return Promise.resolve(undefined);
  const location = parseObjectStoreLocation(env.LASTWORD_OBJECT_STORE);
  const credentials =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }),
        }
      : undefined;
  return openObjectStore(location, credentials);
}

main().catch((error: unknown) => {
  console.error(`The worker could not start: ${(error as Error).message}`);
  process.exit(1);
});
