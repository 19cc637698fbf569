import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, rest, startHarness, startHarnessWorker } from "./api-harness";
import type { WorkerProcess } from "./worker-process";

// POST /topics/{topic}/partitions/{p}/delete-records: Kafka's deleteRecords through a real worker.
let h: Harness;
let worker: WorkerProcess;
let dataDir: string;
let key: string;
let organizationId: string;

const str = (data: string) => ({ type: "string", data });
const produce = (topic: string, values: string[]) =>
  rest(h.server, { apiKey: key }, "POST", `/topics/${topic}/records`, {
    records: values.map((v) => ({ key: str("k"), value: str(v), partition: 0 })),
  });

beforeAll(async () => {
  h = await startHarness("delete_records");
  ({ worker, dataDir } = await startHarnessWorker(h));
  const tenant = await h.server.provisionTenant({
    name: "Trim",
    email: "trim@example.com",
    password: "trim-pass-1",
  });
  organizationId = tenant.organizationId;
  key = (await h.server.createApiKey({ ...tenant, name: "rw" })).key;
  for (const [name, policy] of [
    ["events", "delete"],
    ["table", "compact"],
  ] as const) {
    const created = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name,
      partitions: 1,
      // Tiny segments so the records below the new start fill whole segments that retention can delete.
      configs: { "cleanup.policy": policy, "segment.bytes": 200 },
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await worker?.stop();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("delete-records", () => {
  it("moves the log start offset, makes older offsets unreadable and deletes whole segments below it", async () => {
    for (let i = 0; i < 6; i++) expect((await produce("events", [`value-${i}`])).status).toBe(200);
    const topic = await h.db.prisma.topic.findFirstOrThrow({ where: { name: "events" } });
    const dir = join(dataDir, organizationId, topic.id, "0");
    const segmentsBefore = readdirSync(dir).filter((f) => f.endsWith(".log")).length;

    const trimmed = await rest(
      h.server,
      { apiKey: key },
      "POST",
      "/topics/events/partitions/0/delete-records",
      {
        beforeOffset: 4,
      },
    );
    expect(trimmed.status).toBe(200);
    expect(trimmed.body).toEqual({ partition: 0, logStartOffset: 4 });
    expect(readdirSync(dir).filter((f) => f.endsWith(".log")).length).toBeLessThan(segmentsBefore);

    const below = await rest(
      h.server,
      { apiKey: key },
      "GET",
      "/topics/events/partitions/0/records?offset=0",
    );
    expect(below.status).toBe(416);
    expect(below.body.code).toBe("OFFSET_OUT_OF_RANGE");
    const from = await rest(h.server, { apiKey: key }, "GET", "/topics/events/partitions/0/records?offset=4");
    expect((from.body.records as { offset: number }[]).map((r) => r.offset)).toEqual([4, 5]);

    const audit = await h.db.prisma.auditEvent.findFirst({ where: { action: "partition.records.deleted" } });
    expect(audit?.data).toMatchObject({ topic: "events", beforeOffset: 4, logStartOffset: 4 });
  });

  it("refuses compact-only topics with POLICY_VIOLATION and changes nothing", async () => {
    expect((await produce("table", ["a", "b"])).status).toBe(200);
    const refused = await rest(
      h.server,
      { apiKey: key },
      "POST",
      "/topics/table/partitions/0/delete-records",
      {
        beforeOffset: 1,
      },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("POLICY_VIOLATION");
    const all = await rest(h.server, { apiKey: key }, "GET", "/topics/table/partitions/0/records?offset=0");
    expect((all.body.records as { offset: number }[]).map((r) => r.offset)).toEqual([0, 1]);
  });

  it("refuses an offset beyond the log end with OFFSET_OUT_OF_RANGE", async () => {
    const refused = await rest(
      h.server,
      { apiKey: key },
      "POST",
      "/topics/events/partitions/0/delete-records",
      {
        beforeOffset: 1000,
      },
    );
    expect(refused.status).toBe(416);
    expect(refused.body.code).toBe("OFFSET_OUT_OF_RANGE");
  });
});
