import { spawn } from "node:child_process";
import { ApiKey } from "@lastword/kafka-protocol";
import { CODEC_IDS, readBatchHeader } from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { fetchBody, kcatSasl, RawKafka, run, type SaslMechanism } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// librdkafka 2.0.2, as Debian ships it: kcat producing and consuming over SASL PLAIN and SCRAM, and
// python3-confluent-kafka producing. CI installs both; a missing one fails here, it is never skipped.

const ORG = "org_rdkafka";
const world = useKafkaWorld({ name: "rdkafka", secret: "rdkafka-test-secret" }, ORG, {
  topics: { flags: [3, { "cleanup.policy": "compact" }], events: 1, zipped: 1 },
  scopes: ["topics:read", "records:read", "records:write"],
});

function sasl(mechanism: SaslMechanism, secret = world.key.secret): string[] {
  return kcatSasl(world.bootstrap, { id: world.key.id, secret }, { mechanism });
}

/** kcat -P with `lines` on stdin (key:value with -K:). */
function kcatProduce(args: string[], lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("kcat", args, { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`kcat exited ${code}: ${stderr}`)),
    );
    child.stdin.end(`${lines.join("\n")}\n`);
  });
}

async function kcatConsume(mechanism: SaslMechanism, topic: string): Promise<string[]> {
  const { stdout } = await run(
    "kcat",
    [...sasl(mechanism), "-C", "-t", topic, "-e", "-q", "-f", "%p|%o|%k|%s\\n"],
    {
      timeout: 30_000,
    },
  );
  return stdout.split("\n").filter((l) => l.length > 0);
}

describe("librdkafka 2.0.2 clients", () => {
  it("1. kcat produces keyed records over PLAIN and reads them back over PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `flag-${i}:value-${i}`);
    await kcatProduce([...sasl("PLAIN"), "-P", "-t", "flags", "-K:"], lines);
    for (const mechanism of ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] as const) {
      const rows = await kcatConsume(mechanism, "flags");
      const byKey = new Map(rows.map((r) => r.split("|")).map(([, , k, v]) => [k, v]));
      expect(byKey.size, mechanism).toBe(30);
      expect(byKey.get("flag-7")).toBe("value-7");
    }
  });

  it("2. kcat over SCRAM-SHA-512 produces too; a wrong secret fails to authenticate", async () => {
    await kcatProduce([...sasl("SCRAM-SHA-512"), "-P", "-t", "events"], ["one", "two"]);
    expect((await kcatConsume("PLAIN", "events")).map((r) => r.split("|")[3])).toEqual(["one", "two"]);
    const bad = sasl("PLAIN", "wrong");
    await expect(
      run("kcat", [...bad, "-C", "-t", "events", "-e", "-q", "-X", "debug=", "-m", "5"], { timeout: 30_000 }),
    ).rejects.toThrow();
  });

  it("3. python3-confluent-kafka (librdkafka 2.0.2) produces with acks=all; every delivery report names an offset", async () => {
    const script = `
import json, sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1], "security.protocol": "SASL_PLAINTEXT",
              "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": sys.argv[2], "sasl.password": sys.argv[3],
              "acks": "all", "compression.type": "gzip"})
reports = []
def done(err, msg):
    reports.append({"err": str(err) if err else None, "partition": msg.partition(), "offset": msg.offset()})
for i in range(20):
    p.produce("flags", key=f"py-{i}", value=f"from-python-{i}", on_delivery=done)
p.flush(20)
print(json.dumps(reports))
`;
    const { stdout } = await run(
      "/usr/bin/python3",
      ["-c", script, world.bootstrap, world.key.id, world.key.secret],
      { timeout: 60_000 },
    );
    const reports = JSON.parse(stdout) as { err: string | null; partition: number; offset: number }[];
    expect(reports).toHaveLength(20);
    expect(reports.every((r) => r.err === null && r.offset >= 0)).toBe(true);
    const rows = await kcatConsume("PLAIN", "flags");
    expect(rows.filter((r) => r.split("|")[3]?.startsWith("from-python-"))).toHaveLength(20);
  });

  it("4. kcat -z gzip and python3-confluent-kafka with compression.type=gzip store gzip batches: librdkafka compresses because Produce is advertised, and served, from v0", async () => {
    // Compressible values: librdkafka sends a batch plain when gzip would not make it smaller.
    const padding = "z".repeat(400);
    await kcatProduce(
      [...sasl("PLAIN"), "-P", "-t", "zipped", "-z", "gzip"],
      [1, 2, 3].map((i) => `kcat-${i}-${padding}`),
    );
    const script = `
import sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1], "security.protocol": "SASL_PLAINTEXT",
              "sasl.mechanisms": "PLAIN", "sasl.username": sys.argv[2], "sasl.password": sys.argv[3],
              "compression.type": "gzip", "linger.ms": 20})
errors = []
for i in range(3):
    p.produce("zipped", value=f"python-{i}-" + "z" * 400, on_delivery=lambda err, msg: err and errors.append(str(err)))
p.flush(20)
if errors: raise SystemExit(errors)
`;
    await run("/usr/bin/python3", ["-c", script, world.bootstrap, world.key.id, world.key.secret], {
      timeout: 60_000,
    });
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const fetched = await raw.call(ApiKey.Fetch, 11, fetchBody("zipped", 0, 0));
    raw.close();
    const records = fetched.responses[0]!.partitions[0]!.records!;
    const codecs: number[] = [];
    for (let pos = 0; pos < records.length; ) {
      const header = readBatchHeader(records, pos);
      codecs.push(header.attributes & 0x07);
      pos += header.sizeBytes;
    }
    // The topic keeps the producer's codec: each client's batches arrive, and stay, gzip.
    expect(codecs.length).toBeGreaterThanOrEqual(2);
    expect(codecs.every((codec) => codec === CODEC_IDS.gzip)).toBe(true);
    const values = (await kcatConsume("PLAIN", "zipped")).map((r) => r.split("|")[3]!.replace(padding, ""));
    expect(values.sort()).toEqual(["kcat-1-", "kcat-2-", "kcat-3-", "python-0-", "python-1-", "python-2-"]);
  });
});
