import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { DEV_INTERNAL_SECRET } from "@lastword/dataplane/dev-secret";
import { parseEnv } from "@lastword/db";
import { z } from "zod";
import { FAULT_POINTS } from "./fault-points";
import { testFaultRuleSchema } from "./kafka/test-faults";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

// The web falls back to the same secret, so `npm run dev` needs no environment; production must set its own.
export { DEV_INTERNAL_SECRET };

const schema = z
  .object({
    NODE_ENV: z.string().default("development"),
    DATABASE_URL: z.url().default("postgresql://postgres@127.0.0.1:5432/lastword"),
    REDIS_URL: z.url().default("redis://127.0.0.1:6379"),
    REDIS_PREFIX: z.string().min(1).default("lastword"),
    LASTWORD_DATA_DIR: z.string().min(1).default(`${repoRoot}.lastword/data`),
    LASTWORD_INTERNAL_SECRET: z.string().min(1).optional(),
    // Where partitions are durable (a path, file:// URL or s3:// URL, parseObjectStoreLocation);
    // unset: a produce is acknowledged on the local fsync and a partition lives on this disk only.
    LASTWORD_OBJECT_STORE: z.string().min(1).optional(),
    // S3 credentials when LASTWORD_OBJECT_STORE is s3:// (otherwise the SDK's default chain).
    AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
    AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    AWS_SESSION_TOKEN: z.string().min(1).optional(),
    // How long appends gather before one commit object carries them all.
    WORKER_COMMIT_WINDOW_MS: z.coerce.number().int().min(1).max(1_000).default(10),
    // How long a partition's rows stay in shared commit objects before they move to one of its own.
    WORKER_CONSOLIDATE_AFTER_MS: z.coerce.number().int().min(0).default(30_000),
    // How long an object the manifest stopped naming stays for readers of an older manifest.
    WORKER_OBJECT_GRACE_MS: z.coerce.number().int().min(0).default(300_000),
    WORKER_ID: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .default(() => `worker-${randomBytes(5).toString("hex")}`),
    WORKER_DATAPLANE_HOST: z.string().min(1).default("127.0.0.1"),
    WORKER_ADVERTISED_HOST: z.string().min(1).optional(),
    WORKER_DATAPLANE_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    // The Kafka listener: port 0 binds an ephemeral port (npm start asks for 9092).
    WORKER_KAFKA_HOST: z.string().min(1).default("127.0.0.1"),
    WORKER_KAFKA_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    WORKER_KAFKA_ADVERTISED_HOST: z.string().min(1).optional(),
    WORKER_KAFKA_TLS_CERT_FILE: z.string().min(1).optional(),
    WORKER_KAFKA_TLS_KEY_FILE: z.string().min(1).optional(),
    WORKER_KAFKA_ALLOW_PLAINTEXT: z
      .enum(["true", "false"])
      .default("false")
      .transform((v) => v === "true"),
    // The listener's connection limits (kafka/connection-guard.ts, DEFAULT_CONNECTION_LIMITS).
    WORKER_KAFKA_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(10_000),
    WORKER_KAFKA_MAX_CONNECTIONS_PER_KEY: z.coerce.number().int().min(1).default(1_000),
    WORKER_KAFKA_MAX_UNAUTHENTICATED: z.coerce.number().int().min(1).default(1_000),
    WORKER_KAFKA_MAX_UNAUTHENTICATED_PER_IP: z.coerce.number().int().min(1).default(50),
    WORKER_KAFKA_AUTHENTICATION_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    // Kafka's connections.max.idle.ms.
    WORKER_KAFKA_CONNECTIONS_MAX_IDLE_MS: z.coerce.number().int().min(100).default(600_000),
    WORKER_KAFKA_FAILED_LOGINS_PER_IP: z.coerce.number().int().min(1).default(30),
    WORKER_KAFKA_FAILED_LOGINS_PER_KEY: z.coerce.number().int().min(1).default(10),
    WORKER_KAFKA_FAILED_LOGIN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
    WORKER_KAFKA_REFUSED_LOGIN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
    // Kafka's socket.request.max.bytes.
    WORKER_KAFKA_SOCKET_REQUEST_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1 << 20)
      .max(1 << 30)
      .default(100 << 20),
    // The threads compressed Produce batches are inflated in, and how many batches may wait for one
    // (inflation/inflate-pool.ts; 0 threads: one per core but one).
    WORKER_INFLATE_THREADS: z.coerce.number().int().min(0).max(64).default(0),
    WORKER_INFLATE_QUEUE: z.coerce.number().int().min(1).default(1_024),
    // Kafka's group.initial.rebalance.delay.ms: the first rebalance of an empty group waits this
    // long for more members (tests start workers in-process with 0).
    WORKER_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(3_000),
    WORKER_LEASE_TTL_MS: z.coerce.number().int().min(1000).default(10_000),
    WORKER_SCHEDULER_TICK_MS: z.coerce.number().int().min(100).default(5_000),
    // "off": no cleaner, retention or erasure scheduling; the worker hosts partitions and serves
    // the data plane, and passes run only when requested (the api's tests run such workers).
    WORKER_SCHEDULING: z.enum(["on", "off"]).default("on"),
    WORKER_CLEANER_THREADS: z.coerce.number().int().min(1).max(64).default(1),
    // Kafka's log.cleaner.dedupe.buffer.size (128 MiB), split evenly between the cleaner threads.
    WORKER_DEDUPE_BUFFER_BYTES: z.coerce
      .number()
      .int()
      .min(1 << 20)
      .default(128 << 20),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    // Tests only: `after-append` SIGKILLs the worker between a produce's append and its answer;
    // `before-manifest-commit` SIGKILLs it after a commit window's PUT, before its manifest commit.
    LASTWORD_FAULT_POINT: z.enum(FAULT_POINTS).optional(),
    // Tests only: a JSON list of Kafka listener faults, each answering one request (kafka/test-faults.ts).
    WORKER_KAFKA_TEST_FAULTS: z
      .string()
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: "custom", message: "WORKER_KAFKA_TEST_FAULTS must be JSON" });
          return z.NEVER;
        }
      })
      .pipe(z.array(testFaultRuleSchema))
      .optional(),
  })
  .refine((env) => env.NODE_ENV !== "production" || env.LASTWORD_FAULT_POINT === undefined, {
    message: "fault points are for tests and refused in production",
    path: ["LASTWORD_FAULT_POINT"],
  })
  .refine((env) => env.NODE_ENV !== "production" || env.WORKER_KAFKA_TEST_FAULTS === undefined, {
    message: "Kafka test faults are for tests and refused in production",
    path: ["WORKER_KAFKA_TEST_FAULTS"],
  })
  .refine(
    (env) => (env.WORKER_KAFKA_TLS_CERT_FILE === undefined) === (env.WORKER_KAFKA_TLS_KEY_FILE === undefined),
    {
      message: "set both WORKER_KAFKA_TLS_CERT_FILE and WORKER_KAFKA_TLS_KEY_FILE, or neither",
      path: ["WORKER_KAFKA_TLS_CERT_FILE"],
    },
  )
  .refine((env) => env.NODE_ENV !== "production" || env.LASTWORD_INTERNAL_SECRET !== undefined, {
    message: "LASTWORD_INTERNAL_SECRET is required in production",
    path: ["LASTWORD_INTERNAL_SECRET"],
  })
  .refine((env) => env.NODE_ENV !== "production" || env.LASTWORD_INTERNAL_SECRET !== DEV_INTERNAL_SECRET, {
    message: "must not be the development default in production",
    path: ["LASTWORD_INTERNAL_SECRET"],
  });

export type WorkerEnv = z.infer<typeof schema>;

/** The only place the worker reads process.env; throws one readable sentence on a bad value. */
export function readWorkerEnv(source?: Record<string, string | undefined>): WorkerEnv {
  return parseEnv(schema, source);
}
