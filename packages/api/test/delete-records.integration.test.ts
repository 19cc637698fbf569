import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rest, str } from "./api-harness";
import { useTenantWorld } from "./tenant-world";

// POST /topics/{topic}/partitions/{p}/delete-records: Kafka's deleteRecords through a real worker.
const h = useTenantWorld("delete_records", {
  // Tiny segments so the records below the new start fill whole segments that retention can delete.
  topics: [
    { name: "events", partitions: 1, configs: { "cleanup.policy": "delete", "segment.bytes": 200 } },
    { name: "table", partitions: 1, configs: { "cleanup.policy": "compact", "segment.bytes": 200 } },
  ],
});

const produce = (topic: string, values: string[]) =>
  rest(h.server, { apiKey: h.key }, "POST", `/topics/${topic}/records`, {
    records: values.map((v) => ({ key: str("k"), value: str(v), partition: 0 })),
  });
const deleteBefore = (topic: string, beforeOffset: number) =>
  rest(h.server, { apiKey: h.key }, "POST", `/topics/${topic}/partitions/0/delete-records`, { beforeOffset });
const readFrom = (topic: string, offset: number) =>
  rest(h.server, { apiKey: h.key }, "GET", `/topics/${topic}/partitions/0/records?offset=${offset}`);

describe("delete-records", () => {
  it("moves the log start offset, makes older offsets unreadable and deletes whole segments below it", async () => {
    for (let i = 0; i < 6; i++) expect((await produce("events", [`value-${i}`])).status).toBe(200);
    const topic = await h.db.prisma.topic.findFirstOrThrow({ where: { name: "events" } });
    const dir = join(h.dataDir, h.organizationId, topic.id, "0");
    const segmentsBefore = readdirSync(dir).filter((f) => f.endsWith(".log")).length;

    const trimmed = await deleteBefore("events", 4);
    expect(trimmed.status).toBe(200);
    expect(trimmed.body).toEqual({ partition: 0, logStartOffset: 4 });
    expect(readdirSync(dir).filter((f) => f.endsWith(".log")).length).toBeLessThan(segmentsBefore);

    const below = await readFrom("events", 0);
    expect(below.status).toBe(416);
    expect(below.body.code).toBe("OFFSET_OUT_OF_RANGE");
    const from = await readFrom("events", 4);
    expect((from.body.records as { offset: number }[]).map((r) => r.offset)).toEqual([4, 5]);

    const audit = await h.db.prisma.auditEvent.findFirst({ where: { action: "partition.records.deleted" } });
    expect(audit?.data).toMatchObject({ topic: "events", beforeOffset: 4, logStartOffset: 4 });
  });

  it("refuses compact-only topics with POLICY_VIOLATION and changes nothing", async () => {
    expect((await produce("table", ["a", "b"])).status).toBe(200);
    const refused = await deleteBefore("table", 1);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("POLICY_VIOLATION");
    const all = await readFrom("table", 0);
    expect((all.body.records as { offset: number }[]).map((r) => r.offset)).toEqual([0, 1]);
  });

  it("refuses an offset beyond the log end with OFFSET_OUT_OF_RANGE", async () => {
    const refused = await deleteBefore("events", 1000);
    expect(refused.status).toBe(416);
    expect(refused.body.code).toBe("OFFSET_OUT_OF_RANGE");
  });
});
