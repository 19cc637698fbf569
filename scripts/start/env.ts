import { parseEnv } from "@lastword/db";
import { z } from "zod";

const schema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/lastword"),
  REDIS_URL: z.string().url().default("redis://127.0.0.1:6379"),
  REDIS_PREFIX: z.string().min(1).default("lastword"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  PUBLIC_URL: z.string().url().optional(),
  LASTWORD_DATA_DIR: z.string().optional(),
  LASTWORD_OBJECT_STORE: z.string().optional(),
  LASTWORD_SKIP_BUILD: z.enum(["0", "1"]).default("0"),
  // The worker's Kafka listener: Kafka's own default port, so clients need no port in the docs' examples.
  WORKER_KAFKA_PORT: z.coerce.number().int().min(1).max(65535).default(9092),
  WORKER_KAFKA_ADVERTISED_HOST: z.string().min(1).optional(),
});

export type StartEnv = z.infer<typeof schema>;

export function readStartEnv(source?: Record<string, string | undefined>): StartEnv {
  return parseEnv(schema, source);
}

/** What the children inherit: the parent's environment plus the resolved settings. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
}

/** What both of `npm start`'s processes get beyond the parent's environment: database, Redis, secret. */
export function sharedEnv(env: StartEnv, internalSecret: string): NodeJS.ProcessEnv {
  return childEnv({
    DATABASE_URL: env.DATABASE_URL,
    REDIS_URL: env.REDIS_URL,
    REDIS_PREFIX: env.REDIS_PREFIX,
    LASTWORD_INTERNAL_SECRET: internalSecret,
  });
}

/**
 * What the one worker of `npm start` gets beyond the shared settings: its data dir and a Kafka
 * listener on loopback (plaintext SASL is allowed there only), and the bootstrap address it prints.
 */
export function workerSettings(
  env: StartEnv,
  stateDir: string,
): { env: Record<string, string>; kafkaBootstrap: string } {
  const kafkaHost = env.WORKER_KAFKA_ADVERTISED_HOST ?? "127.0.0.1";
  return {
    env: {
      LASTWORD_DATA_DIR: env.LASTWORD_DATA_DIR ?? `${stateDir}/data`,
      // Partitions' durable home: the filesystem beside the data by default, S3 when set (README).
      LASTWORD_OBJECT_STORE: env.LASTWORD_OBJECT_STORE ?? `${stateDir}/objects`,
      WORKER_KAFKA_HOST: "127.0.0.1",
      WORKER_KAFKA_PORT: String(env.WORKER_KAFKA_PORT),
      ...(env.WORKER_KAFKA_ADVERTISED_HOST && {
        WORKER_KAFKA_ADVERTISED_HOST: env.WORKER_KAFKA_ADVERTISED_HOST,
      }),
    },
    kafkaBootstrap: `${kafkaHost}:${env.WORKER_KAFKA_PORT}`,
  };
}
