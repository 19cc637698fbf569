/**
 * The kafkajs side of the Kafka bench (bench/kafka-bench.ts), as its own process holding only
 * kafkajs (the bench process's database and Redis clients would slow its promises and garbage
 * collection). Each mode times itself and prints one JSON line: {"seconds": …, …}.
 *
 *   consume bootstrap keyId secret topic
 *     a cold start: a new group from the earliest offset, read to the high watermarks ListOffsets
 *     answered first into a Map (a tombstone deletes its key); timed from the client's creation.
 *   produce bootstrap keyId secret topic batches recordsPerBatch valueBytes inFlight
 *     acks=-1 sends of recordsPerBatch records to partition 0, inFlight outstanding; timed after
 *     one record sent and acknowledged (connection and login).
 */
import { Kafka, logLevel } from "kafkajs";

const [mode, bootstrap, username, password, topic, ...rest] = process.argv.slice(2) as string[];

function client(): Kafka {
  return new Kafka({
    clientId: "kafkajs-bench",
    brokers: [bootstrap!],
    sasl: { mechanism: "plain", username: username!, password: password! },
    logLevel: logLevel.NOTHING,
  });
}

async function consume(): Promise<object> {
  const started = performance.now();
  const kafka = client();
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map(
    (await admin.fetchTopicOffsets(topic!)).map((p) => [p.partition, BigInt(p.high)] as const),
  );
  await admin.disconnect();
  const pending = new Set([...ends].filter(([, high]) => high > 0n).map(([partition]) => partition));
  const state = new Map<string, Buffer>();
  let records = 0;
  const consumer = kafka.consumer({ groupId: `bench-${process.pid}` });
  await consumer.connect();
  await consumer.subscribe({ topic: topic!, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachBatch: async ({ batch }) => {
          for (const message of batch.messages) {
            records++;
            const key = message.key!.toString();
            if (message.value === null) state.delete(key);
            else state.set(key, message.value);
          }
          if (BigInt(batch.lastOffset()) + 1n >= ends.get(batch.partition)!) pending.delete(batch.partition);
          if (pending.size === 0) resolve();
        },
      })
      .catch(reject);
    if (pending.size === 0) resolve();
  });
  const seconds = (performance.now() - started) / 1000;
  await consumer.disconnect();
  return { seconds, records, keys: state.size };
}

async function produce(): Promise<object> {
  const [batches, perBatch, valueBytes, inFlight] = rest.map(Number) as [number, number, number, number];
  const producer = client().producer();
  await producer.connect();
  await producer.send({ topic: topic!, acks: -1, messages: [{ key: "warm-up", value: "x", partition: 0 }] });
  const value = Buffer.alloc(valueBytes, "v");
  const bodies = Array.from({ length: batches }, (_, b) =>
    Array.from({ length: perBatch }, (_, i) => ({ key: `key-${b}-${i}`, value, partition: 0 })),
  );
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < bodies.length)
        await producer.send({ topic: topic!, acks: -1, messages: bodies[next++]! });
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await producer.disconnect();
  return { seconds, records: batches * perBatch };
}

const run = mode === "consume" ? consume : mode === "produce" ? produce : null;
if (!run) throw new Error(`unknown mode ${mode}`);
console.log(JSON.stringify(await run()));
