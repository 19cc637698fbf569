// Tenant B of the noisy-neighbour bench (noisy-bench.ts), in a process of its own so that its load
// generation never delays tenant A's measurements in the bench's process: at its quota, it floods
// one worker with compression bombs, big compressed batches, connections (logged in and not) and
// large fetches until it is killed or its time is up. Prints one JSON line of what it sent.
import { CODEC_IDS, encodeRecordBatch } from "@lastword/record-batch";
import "@lastword/record-batch/node-codecs";
import { fetchBody, RawKafka } from "../test/kafka-client";

interface FloodConfig {
  host: string;
  port: number;
  key: { id: string; secret: string };
  topic: string;
  partitions: number;
  seconds: number;
  producers: number;
  fetchers: number;
  /** Logged-in connections it tries to hold (more than its quota allows). */
  connections: number;
  /** Unauthenticated sockets it holds, from other loopback addresses. */
  anonymous: number;
}

const config = JSON.parse(process.argv[2]!) as FloodConfig;
const until = performance.now() + config.seconds * 1000;
const live = () => performance.now() < until;
const sent = {
  bombs: 0,
  big: 0,
  produceRequests: 0,
  fetches: 0,
  fetchedBytes: 0,
  logins: 0,
  refusedLogins: 0,
  sockets: 0,
};

/** `count` records of 64 KiB of zeros, zstd: a few KiB on the wire, count × 64 KiB inflated. */
function zeros(count: number): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`b${i}`),
    value: Buffer.alloc(64 << 10),
    timestamp: 1,
  }));
  return encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 1, compression: CODEC_IDS.zstd });
}

// Encoded once: B's cost to send them is nothing, which is what makes them hostile.
const bomb = zeros(900); // 56 MiB inflated: over the 16 MiB maxBatchInflatedBytes
const big = zeros(128); // 8 MiB inflated: within it, and over the produce quota in bytes

/**
 * Logs in and runs `step` on the connection over and over while the flood lasts; a connection
 * closed under it (a limit, the end) logs in again.
 */
async function onLoggedInConnection(step: (raw: RawKafka) => Promise<void>): Promise<void> {
  while (live()) {
    const raw = await RawKafka.login(config, config.key).catch(() => null);
    if (!raw) continue;
    try {
      while (live()) await step(raw);
    } catch {
      // Closed under it: log in again.
    } finally {
      raw.close();
    }
  }
}

function producer(): Promise<void> {
  return onLoggedInConnection(async (raw) => {
    const useBomb = sent.produceRequests % 2 === 0;
    const batch = useBomb ? bomb : big;
    await raw.call(0, 8, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 30_000,
      topicData: [
        {
          name: config.topic,
          partitionData: Array.from({ length: config.partitions }, (_, index) => ({
            index,
            records: batch,
          })),
        },
      ],
    });
    sent.produceRequests++;
    if (useBomb) sent.bombs += config.partitions;
    else sent.big += config.partitions;
  });
}

function fetcher(): Promise<void> {
  return onLoggedInConnection(async (raw) => {
    const frame = await raw.request(
      1,
      11,
      fetchBody(config.topic, sent.fetches % config.partitions, 0, { partitionMaxBytes: 50 << 20 }),
      0,
    );
    sent.fetches++;
    sent.fetchedBytes += frame.length;
  });
}

async function connector(): Promise<void> {
  const held: RawKafka[] = [];
  while (live()) {
    const raw = await RawKafka.open(config.host, config.port).catch(() => null);
    if (!raw) continue;
    try {
      await raw.loginPlain(config.key.id, config.key.secret);
      sent.logins++;
      held.push(raw);
      if (held.length > config.connections) held.shift()?.close();
    } catch {
      sent.refusedLogins++;
      raw.close();
    }
  }
  for (const raw of held) raw.close();
}

async function anonymous(slot: number): Promise<void> {
  const from = `127.0.2.${(slot % 200) + 1}`;
  while (live()) {
    const raw = await RawKafka.open(config.host, config.port, from).catch(() => null);
    if (!raw) continue;
    sent.sockets++;
    await Promise.race([
      raw.closedByServer(),
      new Promise((resolve) => setTimeout(resolve, Math.max(0, until - performance.now()))),
    ]);
    raw.close();
  }
}

await Promise.all([
  ...Array.from({ length: config.producers }, producer),
  ...Array.from({ length: config.fetchers }, fetcher),
  connector(),
  connector(),
  ...Array.from({ length: config.anonymous }, (_, i) => anonymous(i)),
]);
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ ...sent, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
process.exit(0);
