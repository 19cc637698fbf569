import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel } from "kafkajs";
import { afterEach, describe, expect, it } from "vitest";
import { kcatProperties, kcatSasl } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// librdkafka 2.0.2 consumer groups (python3-confluent-kafka, and kcat -G beside it) against one
// worker: the default assignor (range) and cooperative-sticky, which librdkafka drives as two
// rounds of the classic protocol (revoke, then assign).

const PYTHON = "/usr/bin/python3";
const ORG = "org_groups_rdk";
const world = useKafkaWorld({ name: "kafka-groups-rdk", secret: "kafka-groups-rdk-secret" }, ORG, {
  topics: { "range-t": 4, "coop-t": 4, "kcat-coop": 4 },
});
const children: ChildProcess[] = [];

interface Member {
  child: ChildProcess;
  /** The partitions held now, from the assign/revoke callbacks. */
  held: Set<number>;
  records: [number, string][];
}

function member(groupId: string, topic: string, strategy: string): Member {
  const script = fileURLToPath(new URL("./librdkafka-member.py", import.meta.url));
  const child = spawn(
    PYTHON,
    [script, world.bootstrap, world.key.id, world.key.secret, groupId, topic, strategy],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  children.push(child);
  const m: Member = { child, held: new Set(), records: [] };
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const event = JSON.parse(line) as { assigned?: number[]; revoked?: number[]; record?: [number, string] };
    if (event.record) m.records.push(event.record);
    // Eager (range) callbacks carry the full assignment; cooperative ones only the change.
    if (event.revoked) for (const p of event.revoked) m.held.delete(p);
    if (event.assigned) {
      if (strategy !== "cooperative-sticky") m.held.clear();
      for (const p of event.assigned) m.held.add(p);
    }
  });
  return m;
}

const sorted = (s: Set<number>) => [...s].sort();

function kafka(): Kafka {
  return new Kafka({
    brokers: [world.bootstrap],
    sasl: { mechanism: "plain", username: world.key.id, password: world.key.secret },
    logLevel: logLevel.NOTHING,
  });
}

async function produce(topic: string, messages: { partition: number; value: string }[]) {
  const p = kafka().producer();
  await p.connect();
  await p.send({ topic, messages });
  await p.disconnect();
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  }
});

describe.each(["range", "cooperative-sticky"])("librdkafka consumer group (%s)", (strategy) => {
  const topic = strategy === "range" ? "range-t" : "coop-t";

  it("two members split 4 partitions without overlap, read every record once, and one leaving hands its partitions over", async () => {
    const a = member(`g-${strategy}`, topic, strategy);
    await expect.poll(() => sorted(a.held), { timeout: 20_000 }).toEqual([0, 1, 2, 3]);
    const b = member(`g-${strategy}`, topic, strategy);
    await expect
      .poll(() => [a.held.size, b.held.size, new Set([...a.held, ...b.held]).size], { timeout: 30_000 })
      .toEqual([2, 2, 4]);
    await produce(
      topic,
      [0, 1, 2, 3].map((partition) => ({ partition, value: `v${partition}` })),
    );
    await expect
      .poll(() => [...a.records, ...b.records].map((r) => r[1]).sort(), { timeout: 15_000 })
      .toEqual(["v0", "v1", "v2", "v3"]);
    for (const [p] of a.records) expect(b.held.has(p)).toBe(false);
    for (const [p] of b.records) expect(a.held.has(p)).toBe(false);
    // SIGINT: the member closes its consumer, which sends LeaveGroup.
    b.child.kill("SIGINT");
    await once(b.child, "exit");
    await expect.poll(() => sorted(a.held), { timeout: 20_000 }).toEqual([0, 1, 2, 3]);
  });
});

describe("kcat -G with cooperative-sticky beside a librdkafka member", () => {
  it("the two split 4 partitions without overlap and read every record once", async () => {
    const group = "g-kcat-coop";
    const kcat = spawn(
      "kcat",
      [
        ...kcatSasl(world.bootstrap, world.key),
        ...kcatProperties({
          "partition.assignment.strategy": "cooperative-sticky",
          "auto.offset.reset": "earliest",
          "session.timeout.ms": 6000,
          "heartbeat.interval.ms": 500,
          "fetch.wait.max.ms": 100,
        }),
        "-u",
        "-G",
        group,
        "kcat-coop",
        "-f",
        "%p:%s\\n",
        "-q",
      ],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    children.push(kcat);
    const kcatRecords: [number, string][] = [];
    createInterface({ input: kcat.stdout! }).on("line", (line) => {
      const [partition, value] = line.split(":");
      kcatRecords.push([Number(partition), value!]);
    });
    const admin = kafka().admin();
    await admin.connect();
    const described = async () => (await admin.describeGroups([group])).groups[0]!;
    await expect.poll(async () => (await described()).members.length, { timeout: 20_000 }).toBe(1);

    const python = member(group, "kcat-coop", "cooperative-sticky");
    // Two members: once the librdkafka member holds two partitions, kcat holds the other two.
    await expect.poll(() => python.held.size, { timeout: 30_000 }).toBe(2);
    await expect
      .poll(async () => [(await described()).state, (await described()).members.length], { timeout: 15_000 })
      .toEqual(["Stable", 2]);
    expect((await described()).protocol).toBe("cooperative-sticky");
    await admin.disconnect();

    await produce(
      "kcat-coop",
      [0, 1, 2, 3, 0, 1, 2, 3].map((partition, i) => ({ partition, value: `c${i}` })),
    );
    const everyValue = () => [...kcatRecords, ...python.records].map((r) => r[1]).sort();
    await expect
      .poll(everyValue, { timeout: 20_000 })
      .toEqual(["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"]);
    // Each record once, each partition read by one member only: kcat's are the two the other lacks.
    const kcatPartitions = new Set(kcatRecords.map(([p]) => p));
    expect(sorted(kcatPartitions)).toEqual([0, 1, 2, 3].filter((p) => !python.held.has(p)));
    for (const [p] of python.records) expect(kcatPartitions.has(p)).toBe(false);
    expect(kcatRecords).toHaveLength(4);
    expect(python.records).toHaveLength(4);
  });
});
