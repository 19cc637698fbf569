// A kafkajs consumer-group member in its own process, so a test can SIGKILL it (no LeaveGroup).
// argv: bootstrap keyId secret groupId topic. Prints one JSON line per assignment it receives.
import { Kafka, logLevel } from "kafkajs";

const [bootstrap, username, password, groupId, topic] = process.argv.slice(2);
const kafka = new Kafka({
  brokers: [bootstrap],
  clientId: "kafkajs-member",
  sasl: { mechanism: "plain", username, password },
  retry: { retries: 3, initialRetryTime: 50 },
  logLevel: logLevel.NOTHING,
});
const consumer = kafka.consumer({
  groupId,
  maxWaitTimeInMs: 100,
  sessionTimeout: 6000,
  heartbeatInterval: 500,
});
consumer.on(consumer.events.GROUP_JOIN, (e) => {
  process.stdout.write(`${JSON.stringify({ partitions: e.payload.memberAssignment[topic] ?? [] })}\n`);
});
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: false });
await consumer.run({ eachMessage: async () => undefined });
