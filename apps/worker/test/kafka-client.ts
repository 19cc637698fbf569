import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { promisify } from "node:util";
import { hashApiKey, type Scope, scopesToPermissions } from "@lastword/api/key-auth";
import type { PrismaClient } from "@lastword/db";
import { eventually } from "@lastword/db/testing";
import { deriveScramCredential, SCRAM_MECHANISMS } from "@lastword/kafka-auth";
import {
  ApiKey,
  decodeResponse,
  encodeRequest,
  FrameReader,
  MAX_FRAME_BYTES,
  type RequestInput,
  type ResponseBody,
} from "@lastword/kafka-protocol";
import { type Consumer, Kafka, type KafkaConfig, logLevel, type Producer } from "kafkajs";
import type { RunningWorker, WorkerConfig } from "../src/worker";
import { createNamedTopic, partitionOwners } from "./test-topics";
import type { WorkerHarness } from "./worker-harness";
import type { WorkerProcess } from "./worker-process";

/** execFile as a promise: how the Kafka tests run kcat and the python3-confluent-kafka scripts. */
export const run = promisify(execFile);

// kafkajs otherwise warns, on every producer, that its default partitioner changed in 2.0; it reads
// this when a producer is made, so setting it once here covers every test that imports this module.
process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";

/** What a Kafka client of the group tests needs: topics, records and groups, read and write. */
export const CLIENT_SCOPES = [
  "topics:read",
  "records:read",
  "records:write",
  "groups:read",
  "groups:write",
] as const satisfies readonly Scope[];

/**
 * The organization's creator of test keys, a member with `role` (an owner unless said; created on
 * first use, its role set to `role` when given): a key acts with at most its creator's role.
 */
export async function keyCreator(
  prisma: PrismaClient,
  organizationId: string,
  role?: string,
): Promise<string> {
  const userId = `user_${organizationId}`;
  const now = new Date();
  await prisma.organization.upsert({
    where: { id: organizationId },
    create: { id: organizationId, name: organizationId, slug: organizationId, createdAt: now },
    update: {},
  });
  await prisma.user.upsert({
    where: { id: userId },
    create: { id: userId, name: userId, email: `${userId}@example.com` },
    update: {},
  });
  await prisma.member.upsert({
    where: { organizationId_userId: { organizationId, userId } },
    create: { id: `member_${organizationId}`, organizationId, userId, role: role ?? "owner", createdAt: now },
    update: role === undefined ? {} : { role },
  });
  return userId;
}

/** An API key row as the control plane writes it (hash, permissions, creator, SCRAM credentials). */
export async function createKafkaKey(
  prisma: PrismaClient,
  organizationId: string,
  scopes: readonly Scope[],
  options: { scram?: boolean; iterations?: number; createdByUserId?: string } = {},
): Promise<{ id: string; secret: string }> {
  const id = `key_${randomBytes(6).toString("hex")}`;
  const secret = `lw_${randomBytes(24).toString("base64url")}`;
  const now = new Date();
  const createdByUserId = options.createdByUserId ?? (await keyCreator(prisma, organizationId));
  await prisma.apiKey.create({
    data: {
      id,
      name: id,
      referenceId: organizationId,
      key: hashApiKey(secret),
      start: secret.slice(0, 6),
      enabled: true,
      permissions: JSON.stringify(scopesToPermissions(scopes)),
      createdByUserId,
      createdAt: now,
      updatedAt: now,
    },
  });
  if (options.scram !== false) {
    for (const mechanism of SCRAM_MECHANISMS) {
      const c = await deriveScramCredential(mechanism, secret, { iterations: options.iterations ?? 4096 });
      await prisma.kafkaScramCredential.create({
        data: {
          apiKeyId: id,
          mechanism,
          salt: new Uint8Array(c.salt),
          iterations: c.iterations,
          storedKey: new Uint8Array(c.storedKey),
          serverKey: new Uint8Array(c.serverKey),
        },
      });
    }
  }
  return { id, secret };
}

/**
 * A worker with the Kafka listener on a free loopback port (`overrides.kafka` adds to that),
 * claiming every 100 ms, returned once it hosts `partitions` partitions, with the bootstrap
 * address clients dial.
 */
export async function startKafkaWorker(
  h: WorkerHarness,
  partitions: number,
  overrides: Omit<Partial<WorkerConfig>, "kafka"> & {
    kafka?: Partial<NonNullable<WorkerConfig["kafka"]>>;
  } = {},
): Promise<{ worker: RunningWorker; bootstrap: string }> {
  const worker = await h.startWorker({
    claimIntervalMs: 100,
    ...overrides,
    kafka: { host: "127.0.0.1", port: 0, ...overrides.kafka },
  });
  await eventually(`${partitions} partitions hosted`, 20_000, async () =>
    worker.ownedPartitions().length === partitions ? true : undefined,
  );
  return { worker, bootstrap: `${worker.kafka!.host}:${worker.kafka!.port}` };
}

/**
 * A quiet kafkajs client dialling `bootstrap` as `key` over SASL PLAIN, with the short connection
 * timeout and quick retries the single-worker listener tests want (a refusal surfaces in seconds,
 * not after kafkajs's default back-off); `options` override any of it.
 */
export function plainKafkajs(
  bootstrap: string,
  key: { id: string; secret: string },
  options: Partial<KafkaConfig> & { clientId: string },
): Kafka {
  return new Kafka({
    brokers: [bootstrap],
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    connectionTimeout: 3000,
    retry: { retries: 2, initialRetryTime: 50 },
    logLevel: logLevel.NOTHING,
    ...options,
  });
}

/**
 * A kafkajs client dialling `worker`'s listener as `key` over SASL PLAIN that pushes onto
 * `throttles` every client-side throttle (ms) kafkajs reports in its debug log.
 */
export function throttleRecordingKafka(
  worker: RunningWorker,
  key: { id: string; secret: string },
  clientId: string,
  throttles: number[],
): Kafka {
  return new Kafka({
    brokers: [`${worker.kafka!.host}:${worker.kafka!.port}`],
    clientId,
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    logLevel: logLevel.DEBUG,
    logCreator: () => (entry) => {
      const match = /Client side throttling in effect for (\d+)ms/.exec(entry.log.message);
      if (match) throttles.push(Number(match[1]));
    },
  });
}

/**
 * Every value `consumer` reads of `topic` from its beginning until `until` holds of what it read
 * (`what` names that in a timeout); it is connected here and disconnected before this returns.
 */
export async function readValuesUntil(
  consumer: Consumer,
  topic: string,
  what: string,
  until: (values: string[]) => boolean,
): Promise<string[]> {
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const values: string[] = [];
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
      },
    });
    await eventually(what, 60_000, async () => (until(values) ? true : undefined));
    return values;
  } finally {
    await consumer.disconnect();
  }
}

/**
 * The kafkajs producer the README documents for failovers (idempotent, one request in flight per
 * connection, retries at kafkajs's unlimited default for it), on a quiet client whose quick connect
 * timeout and short back-off find a partition's new leader within its failover time.
 */
export async function failoverProducer(
  brokers: string[],
  key: { id: string; secret: string },
  clientId: string,
): Promise<Producer> {
  const kafka = new Kafka({
    brokers,
    clientId,
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    connectionTimeout: 1_000,
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, maxRetryTime: 1_000 },
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return producer;
}

/**
 * A worker process of `harness` (main.ts, as production runs it) serving Kafka on an ephemeral
 * loopback port, with no cleaner scheduling and groups that rebalance at once.
 */
export function spawnKafkaWorker(
  harness: WorkerHarness,
  id: string,
  leaseTtlMs: number,
): Promise<WorkerProcess> {
  return harness.spawnWorker(id, {
    leaseTtlMs,
    env: {
      WORKER_SCHEDULING: "off",
      WORKER_KAFKA_PORT: "0",
      WORKER_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0",
    },
  });
}

/**
 * Kafka worker processes `ids` of `harness` (spawnKafkaWorker) and `topic`, once every partition
 * has a leader and, with `spread`, every worker leads some (a fair share can leave a worker none
 * when there are fewer than two partitions a worker). `live` maps each worker's id to its process
 * (a test that kills one deletes it there).
 */
export async function kafkaFleet(
  harness: WorkerHarness,
  ids: string[],
  leaseTtlMs: number,
  topic: { org: string; name: string; partitions: number; configs?: Record<string, string>; spread: boolean },
): Promise<{ live: Map<string, WorkerProcess>; partitionIds: string[]; brokers: string[] }> {
  const { prisma } = harness.db;
  const workers = await Promise.all(ids.map((id) => spawnKafkaWorker(harness, id, leaseTtlMs)));
  const live = new Map(workers.map((w) => [w.id, w]));
  const { org, name, partitions, configs } = topic;
  const partitionIds = await createNamedTopic(prisma, org, name, partitions, configs);
  await eventually("every partition led", 30_000, async () => {
    const led = await partitionOwners(prisma, partitionIds);
    const spread = !topic.spread || ids.every((id) => led.includes(id));
    return led.every((o) => o !== null) && spread ? true : undefined;
  });
  return { live, partitionIds, brokers: workers.map((w) => `${w.kafka.host}:${w.kafka.port}`) };
}

/** EndTxn (v`version`) of `transactionalId` by `producer`, committing or aborting: its error code. */
export async function endTxn(
  conn: RawKafka,
  version: number,
  transactionalId: string,
  producer: { producerId: bigint; producerEpoch: number },
  committed: boolean,
): Promise<number> {
  return (await conn.call(ApiKey.EndTxn, version, { transactionalId, ...producer, committed })).errorCode;
}

/** What `producePerPartition` has seen so far. */
export interface PerPartitionProduce {
  /** Per partition: offset → value, only what a send's answer acknowledged. */
  acked: Map<number, string>[];
  /** Every value ever sent. */
  sent: Set<string>;
  /** Each acknowledged send: its partition, when it began and when its answer came. */
  completions: { partition: number; startedAt: number; doneAt: number }[];
  /** Sends that failed (each ends its partition's loop). */
  failures: number;
  /** Stops sending, waits for the sends in flight and disconnects. */
  stop(): Promise<void>;
}

/**
 * kafkajs producing as the root README documents for failovers (failoverProducer, on `producer`'s
 * brokers, key and client id): one loop per partition, its sends
 * one after another, each carrying `perSend` records of that partition only (`value(partition, n,
 * i)`, also their key when `keyed`).
 */
export async function producePerPartition(
  producer: { brokers: string[]; key: { id: string; secret: string }; clientId: string },
  options: {
    topic: string;
    partitions: number;
    perSend: number;
    value: (partition: number, n: number, i: number) => string;
    keyed: boolean;
  },
): Promise<PerPartitionProduce> {
  const kafkajs = await failoverProducer(producer.brokers, producer.key, producer.clientId);
  const { topic, perSend, value, keyed } = options;
  let producing = true;
  const state = {
    acked: Array.from({ length: options.partitions }, () => new Map<number, string>()),
    sent: new Set<string>(),
    completions: [] as PerPartitionProduce["completions"],
    failures: 0,
  };
  const loops = Array.from({ length: options.partitions }, async (_, partition) => {
    for (let n = 0; producing; n++) {
      const values = Array.from({ length: perSend }, (_, i) => value(partition, n, i));
      for (const v of values) state.sent.add(v);
      const startedAt = Date.now();
      try {
        const [answer] = await kafkajs.send({
          topic,
          acks: -1,
          messages: values.map((v) => ({ partition, value: v, ...(keyed && { key: v }) })),
        });
        if (answer?.partition !== partition || answer.errorCode !== 0) {
          throw new Error(`answer ${JSON.stringify(answer)} for partition ${partition}`);
        }
        for (const [i, v] of values.entries()) state.acked[partition]!.set(Number(answer.baseOffset) + i, v);
        state.completions.push({ partition, startedAt, doneAt: Date.now() });
      } catch {
        state.failures++;
        return;
      }
    }
  });
  return Object.assign(state, {
    async stop() {
      producing = false;
      await Promise.all(loops);
      await kafkajs.disconnect();
    },
  });
}

export type SaslMechanism = "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512";

/** librdkafka properties as kcat's `-X name=value` flags. */
export function kcatProperties(properties: Record<string, string | number>): string[] {
  return Object.entries(properties).flatMap(([name, value]) => ["-X", `${name}=${value}`]);
}

/**
 * kcat's flags to reach `bootstrap` as an API key over SASL (the key id is the user name, its
 * secret the password): PLAIN over plaintext unless told otherwise.
 */
export function kcatSasl(
  bootstrap: string,
  key: { id: string; secret: string },
  options: { mechanism?: SaslMechanism; securityProtocol?: "SASL_PLAINTEXT" | "SASL_SSL" } = {},
): string[] {
  return [
    "-b",
    bootstrap,
    ...kcatProperties({
      "security.protocol": options.securityProtocol ?? "SASL_PLAINTEXT",
      "sasl.mechanisms": options.mechanism ?? "PLAIN",
      "sasl.username": key.id,
      "sasl.password": key.secret,
    }),
  ];
}

/** Every record of `topic` as kcat reads it to the end over SASL PLAIN: `[partition, offset, value]`. */
export async function kcatReadAll(
  bootstrap: string,
  key: { id: string; secret: string },
  topic: string,
): Promise<[number, number, string][]> {
  const { stdout } = await run(
    "kcat",
    [...kcatSasl(bootstrap, key), "-C", "-t", topic, "-e", "-q", "-f", "%p|%o|%s\\n"],
    { timeout: 60_000, maxBuffer: 64 << 20 },
  );
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [p, o, v] = line.split("|");
      return [Number(p), Number(o), v!];
    });
}

// Topic rows come from the worker tests' one helper; re-exported so Kafka tests import one module.
export { createNamedTopic, createNamedTopics } from "./test-topics";

/**
 * A minimal Kafka connection speaking our own codec, for requests a test wants to shape exactly
 * (raw frames, a request before authentication, a Fetch whose answer kafkajs's decoder then reads).
 */
/**
 * Resolves once `worker`'s Metadata names topic `name` (for `login`) without an error and with a
 * leader: its Kafka catalog caches each tenant's topics briefly, so a topic just created is not
 * served at once.
 */
export async function topicInMetadata(
  worker: RunningWorker,
  login: { id: string; secret: string },
  name: string,
): Promise<void> {
  await eventually(`${name} in ${worker.id}'s Metadata`, 20_000, async () => {
    const conn = await RawKafka.login(worker.kafka!, login);
    try {
      const answer = await conn.call(ApiKey.Metadata, 9, {
        topics: [{ name }],
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      });
      const topic = answer.topics[0];
      return topic?.errorCode === 0 && (topic.partitions[0]?.leaderId ?? -1) >= 0 ? true : undefined;
    } finally {
      conn.close();
    }
  });
}

export class RawKafka {
  readonly #socket: Socket;
  readonly #reader = new FrameReader({ maxFrameBytes: MAX_FRAME_BYTES });
  readonly #frames: Buffer[] = [];
  #wake: (() => void) | null = null;
  #correlation = 1;
  closed = false;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.#reader.push(chunk);
      for (let f = this.#reader.next(); f; f = this.#reader.next()) this.#frames.push(f);
      this.#wake?.();
    });
    socket.on("close", () => {
      this.closed = true;
      this.#wake?.();
    });
    socket.on("error", () => undefined);
  }

  /** `localAddress` (another loopback address, 127.0.0.2 …) makes the connection come from elsewhere. */
  static async open(host: string, port: number, localAddress?: string): Promise<RawKafka> {
    const socket = connect({ port, host, ...(localAddress && { localAddress }) });
    await once(socket, "connect");
    return new RawKafka(socket);
  }

  /** A connection to `listener` logged in over SASL PLAIN as `key`. */
  static async login(
    listener: { host: string; port: number },
    key: { id: string; secret: string },
  ): Promise<RawKafka> {
    const conn = await RawKafka.open(listener.host, listener.port);
    await conn.loginPlain(key.id, key.secret);
    return conn;
  }

  send(frame: Buffer): void {
    this.#socket.write(frame);
  }

  /** The correlation id the next request will carry. */
  get nextCorrelationId(): number {
    return this.#correlation;
  }

  /** Sends a request without waiting for its answer (pipelining); returns its correlation id. */
  sendRequest<K extends ApiKey>(apiKey: K, version: number, body: RequestInput<K>): number {
    const correlationId = this.#correlation++;
    this.send(encodeRequest(apiKey, version, { correlationId, clientId: "raw-test" }, body));
    return correlationId;
  }

  /** Stops reading from the socket (a client that stalls): the server's answers back up. */
  pauseReading(): void {
    this.#socket.pause();
  }

  resumeReading(): void {
    this.#socket.resume();
  }

  /** Sends a request; returns the response payload after its correlation id (what kafkajs decodes). */
  async request<K extends ApiKey>(
    apiKey: K,
    version: number,
    body: RequestInput<K>,
    headerBytes = 4,
  ): Promise<Buffer> {
    const correlationId = this.sendRequest(apiKey, version, body);
    const frame = await this.nextFrame();
    if (frame.readInt32BE(0) !== correlationId) throw new Error("out-of-order response");
    return frame.subarray(headerBytes);
  }

  /** Sends a request and decodes its response with our codec (for fields kafkajs drops, e.g. messages). */
  async call<K extends ApiKey>(apiKey: K, version: number, body: RequestInput<K>): Promise<ResponseBody<K>> {
    return decodeResponse(apiKey, version, await this.request(apiKey, version, body, 0)).body;
  }

  async nextFrame(): Promise<Buffer> {
    while (this.#frames.length === 0) {
      if (this.closed) throw new Error("connection closed");
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = null;
    }
    return this.#frames.shift() as Buffer;
  }

  /** Resolves once the server closed the connection. */
  async closedByServer(): Promise<void> {
    while (!this.closed) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = null;
    }
  }

  /** SaslHandshake v1 + SaslAuthenticate v1 with PLAIN. */
  async loginPlain(user: string, password: string): Promise<void> {
    await this.request(17, 1, { mechanism: "PLAIN" });
    const answer = await this.request(36, 1, { authBytes: Buffer.from(`\0${user}\0${password}`) });
    if (answer.readInt16BE(0) !== 0) throw new Error(`SASL failed with ${answer.readInt16BE(0)}`);
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** The value of one Prometheus series (`name{labels}`) in a /metrics body, 0 when absent. */
export function metricSample(body: string, series: string): number {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** A Fetch (v4+) body for one partition, as kafkajs shapes it; `currentLeaderEpoch` -1 skips the epoch check. */
export function fetchBody(
  topic: string,
  partition: number,
  offset: number,
  o: { maxWaitMs?: number; partitionMaxBytes?: number; currentLeaderEpoch?: number } = {},
) {
  return {
    replicaId: -1,
    maxWaitMs: o.maxWaitMs ?? 0,
    minBytes: 1,
    maxBytes: 50 << 20,
    isolationLevel: 1,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        partitions: [
          {
            partition,
            currentLeaderEpoch: o.currentLeaderEpoch ?? -1,
            fetchOffset: BigInt(offset),
            logStartOffset: -1n,
            partitionMaxBytes: o.partitionMaxBytes ?? 1 << 20,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: "",
  };
}
