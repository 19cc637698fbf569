import { PARTITIONS_FROZEN_EXPLANATION } from "@lastword/api/topic-rules";
import { describe, expect, it } from "vitest";
import { run } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// The admin APIs through librdkafka 2.0.2 (python3-confluent-kafka's AdminClient), which, unlike
// kafkajs, hands the broker's error message to the application: the REST API's text must arrive.

const ORG = "org_admin_rd";
const world = useKafkaWorld({ name: "kafka-admin-rd", secret: "kafka-admin-rd-secret" }, ORG, {
  topics: { table: [1, { "cleanup.policy": "compact" }] },
  scopes: ["topics:read", "topics:write"],
  keyOptions: { scram: false },
});

interface Outcome {
  op: string;
  ok: boolean;
  code?: string;
  message?: string;
  value?: string;
  source?: number;
  synonyms?: [string, string, number][];
}

describe("AdminClient of python3-confluent-kafka", () => {
  it("creates, describes, alters and deletes topics; refusals carry our codes and messages", async () => {
    const script = `
import json, sys
from confluent_kafka.admin import AdminClient, NewTopic, NewPartitions, ConfigResource
a = AdminClient({"bootstrap.servers": sys.argv[1], "security.protocol": "SASL_PLAINTEXT",
                 "sasl.mechanisms": "PLAIN", "sasl.username": sys.argv[2], "sasl.password": sys.argv[3]})
out = []
def settle(op, future):
    try:
        future.result()
        out.append({"op": op, "ok": True})
    except Exception as e:
        err = e.args[0]
        out.append({"op": op, "ok": False, "code": err.name(), "message": err.str()})
for name, f in a.create_topics([NewTopic("made", 2, 1, config={"cleanup.policy": "compact"}),
                                NewTopic("bad name", 1, 1)]).items():
    settle("create " + name, f)
for r, f in a.describe_configs([ConfigResource("topic", "table")]).items():
    c = f.result()
    for n in ("cleanup.policy", "retention.ms"):
        out.append({"op": "describe " + n, "ok": True, "value": c[n].value, "source": c[n].source,
                    "synonyms": [[s.name, s.value, s.source] for s in c[n].synonyms.values()]})
for r, f in a.alter_configs([ConfigResource("topic", "table", set_config={"cleanup.policy": "delete"})]).items():
    settle("alter", f)
for r, f in a.create_partitions([NewPartitions("table", 3)]).items():
    settle("partitions", f)
for r, f in a.delete_topics(["made"]).items():
    settle("delete", f)
print(json.dumps(out))
`;
    const { stdout } = await run(
      "/usr/bin/python3",
      ["-c", script, world.bootstrap, world.key.id, world.key.secret],
      { timeout: 60_000 },
    );
    const by = Object.fromEntries((JSON.parse(stdout) as Outcome[]).map((o) => [o.op, o]));
    expect(by["create made"]).toEqual({ op: "create made", ok: true });
    expect(by["create bad name"]).toMatchObject({
      ok: false,
      code: "TOPIC_EXCEPTION",
      message: "name: may contain only letters, digits, '.', '_' and '-'",
    });
    // Synonyms: the override, then the default under its broker-level name (source DEFAULT_CONFIG 5).
    expect(by["describe cleanup.policy"]).toMatchObject({
      value: "compact",
      source: 1,
      synonyms: [
        ["cleanup.policy", "compact", 1],
        ["log.cleanup.policy", "delete", 5],
      ],
    });
    expect(by["describe retention.ms"]).toMatchObject({
      value: "604800000",
      source: 5,
      synonyms: [["log.retention.ms", "604800000", 5]],
    });
    expect(by.alter).toMatchObject({
      ok: false,
      code: "POLICY_VIOLATION",
      message: expect.stringContaining(
        'Topic "table" is compacted; cleanup.policy=delete would stop compaction',
      ),
    });
    expect(by.partitions).toMatchObject({
      ok: false,
      code: "POLICY_VIOLATION",
      message: `Topic "table" is compacted; its partition count is frozen. ${PARTITIONS_FROZEN_EXPLANATION}`,
    });
    expect(by.delete).toEqual({ op: "delete", ok: true });
    const rows = await world.h.db.prisma.topic.findMany({
      where: { organizationId: ORG },
      orderBy: { name: "asc" },
    });
    expect(rows.map((t) => [t.name, t.partitionCount, t.configs])).toEqual([
      ["table", 1, { "cleanup.policy": "compact" }],
    ]);
  });
});
