/**
 * The schema registry's cold start: a tenant whose `_schemas` topic holds BENCH_SCHEMA_VERSIONS
 * schema versions (default 10,000: 1,000 subjects × 10 Avro versions, each a record of ~20 fields),
 * read by a web process that has folded nothing yet. Rows, measured in one run against one worker
 * process (apps/worker/src/main.ts):
 *
 * - raw: the topic's compacted view streamed through the data plane, records counted, nothing parsed
 *   (the floor: what the replay cannot avoid);
 * - cold start: a fresh API server's first registry request (`GET /schemas/ids/{last}`): the replay
 *   plus folding every record;
 * - warm: the same request again (an end-offset check, no replay);
 * - first compatibility check after the cold start (parses the subject's versions with avsc).
 *
 *   BENCH_SCHEMA_VERSIONS=10000 node --import tsx packages/api/bench/schema-registry-cold-start.bench.ts
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase } from "@lastword/db/testing";
import { encodeRegistryKey, encodeRegistryValue, ID_COUNTER_KEY, schemaKey } from "@lastword/schema-registry";
import { Redis } from "ioredis";
import { createApiServer, SCHEMA_REGISTRY_TOPIC } from "../src/index";
import { startWorkerProcess } from "../test/worker-process";

const VERSIONS = Number(process.env.BENCH_SCHEMA_VERSIONS ?? 10_000);
const VERSIONS_PER_SUBJECT = 10;
const FIELDS = 20;
// Records per append: a batch stays under the topic's max.message.bytes (1 MiB).
const APPEND_BATCH = 200;

function schemaText(subject: number, version: number): string {
  const fields = Array.from({ length: FIELDS + version }, (_, i) => ({
    name: `field_${i}`,
    type: i % 3 === 0 ? "long" : "string",
    ...(i >= FIELDS ? { default: i % 3 === 0 ? 0 : "" } : {}),
    doc: `field ${i} of subject ${subject}`,
  }));
  return JSON.stringify({ type: "record", name: `Record${subject}`, namespace: "bench", fields });
}

async function main() {
  const db = await createTestDatabase("lastword_bench_schema_registry");
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = new Redis(redisUrl);
  const secret = randomBytes(16).toString("hex");
  const redisPrefix = `lwbench-sr-${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "lastword-bench-sr-"));
  const worker = await startWorkerProcess({ databaseUrl: db.url, dataDir, secret, redisUrl, redisPrefix });
  const dataPlane = new DataPlaneClient({ prisma: db.prisma, secret, ownerWaitMs: 15_000 });
  const serve = () =>
    createApiServer({
      prisma: db.prisma,
      redis,
      dataPlane,
      publicUrl: "http://localhost",
      authSecret: randomBytes(32).toString("hex"),
      redisPrefix,
    });
  const setup = serve();
  try {
    const tenant = await setup.provisionTenant({
      name: "Bench",
      email: "sr@example.com",
      password: "bench-pass-1",
    });
    const { key } = await setup.createApiKey({ ...tenant, name: "bench" });
    const call = async (server: ReturnType<typeof serve>, method: string, path: string, body?: unknown) => {
      const response = await server.handleSchemaRegistry(
        new Request(`http://localhost/schema-registry${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as unknown;
    };
    // The first registration makes the topic; the rest is appended as the registry would write it.
    await call(setup, "POST", "/subjects/s0-value/versions", { schema: schemaText(0, 1) });
    const topic = await db.prisma.topic.findFirstOrThrow({
      where: { organizationId: tenant.organizationId, name: SCHEMA_REGISTRY_TOPIC },
      include: { partitions: true },
    });
    const partitionId = topic.partitions[0]!.id;
    let batch: { key: Buffer; value: Buffer | null }[] = [];
    let bytes = 0;
    for (let n = 1; n < VERSIONS; n++) {
      const subject = `s${Math.floor(n / VERSIONS_PER_SUBJECT)}-value`;
      const version = (n % VERSIONS_PER_SUBJECT) + 1;
      const schema = schemaText(Math.floor(n / VERSIONS_PER_SUBJECT), version);
      const value = encodeRegistryValue({
        subject,
        version,
        id: n + 1,
        schemaType: "AVRO",
        schema,
        references: [],
        deleted: false,
      })!;
      batch.push({ key: encodeRegistryKey(schemaKey(subject, version)), value });
      bytes += value.length;
      if (batch.length === APPEND_BATCH || n === VERSIONS - 1) {
        batch.push({ key: encodeRegistryKey(ID_COUNTER_KEY), value: encodeRegistryValue({ next: n + 2 }) });
        await dataPlane.produce({ partitionId, records: batch });
        batch = [];
      }
    }
    const rows: string[] = [];
    const row = (name: string, seconds: number, floor?: number) => {
      rows.push(
        `| ${name} | ${VERSIONS.toLocaleString("en")} | ${(seconds * 1000).toFixed(0)} | ${floor ? `${(seconds / floor).toFixed(2)}×` : "1×"} |`,
      );
      console.error(rows.at(-1));
    };

    let t0 = performance.now();
    let streamed = 0;
    for await (const frame of dataPlane.streamPartition({ partitionId, mode: "snapshot" })) {
      if (frame.kind === "records") streamed += frame.records.length;
    }
    const raw = (performance.now() - t0) / 1000;
    if (streamed < VERSIONS)
      throw new Error(`the raw read saw ${streamed} records, expected at least ${VERSIONS}`);
    row("raw: compacted view streamed, not parsed", raw);

    const cold = serve();
    t0 = performance.now();
    const last = (await call(cold, "GET", `/schemas/ids/${VERSIONS}`)) as { schema: string };
    const coldSeconds = (performance.now() - t0) / 1000;
    if (!last.schema.includes("Record")) throw new Error("the last schema did not come back");
    row("cold start: first request of a fresh web process (replay + fold)", coldSeconds, raw);

    t0 = performance.now();
    await call(cold, "GET", `/schemas/ids/${VERSIONS}`);
    row("warm: the same request again (end-offset check)", (performance.now() - t0) / 1000, raw);

    const subject = `s${Math.floor((VERSIONS - 1) / VERSIONS_PER_SUBJECT)}-value`;
    t0 = performance.now();
    const check = (await call(cold, "POST", `/compatibility/subjects/${subject}/versions/latest`, {
      schema: schemaText(Math.floor((VERSIONS - 1) / VERSIONS_PER_SUBJECT), VERSIONS_PER_SUBJECT + 1),
    })) as { is_compatible: boolean };
    if (!check.is_compatible) throw new Error("the compatibility check refused a compatible schema");
    row("first compatibility check after the cold start", (performance.now() - t0) / 1000, raw);

    const [load1] = loadavg();
    console.log(
      `\nSchema registry cold start — ${VERSIONS.toLocaleString("en")} versions, ${(bytes / 1e6).toFixed(1)} MB of records; ${cpus().length} cores, load ${load1!.toFixed(2)}\n`,
    );
    console.log("| row | versions | ms | vs raw |\n| --- | ---: | ---: | ---: |");
    for (const line of rows) console.log(line);
    await cold.close(1000);
  } finally {
    await setup.close(1000);
    dataPlane.close();
    await worker.stop();
    redis.disconnect();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
