import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { partitionForKey } from "../src/index";
import { rest, str } from "./api-harness";
import { useTenantWorld } from "./tenant-world";

// The walking skeleton end to end: REST → control plane → DataPlaneClient → a real worker → files.
const h = useTenantWorld("records", {
  topics: [{ name: "profiles", partitions: 3, configs: { "cleanup.policy": "compact" } }],
});

describe("produce and read over REST", () => {
  it("answers the walking skeleton's exact shapes, and the bytes land under the data root", async () => {
    const produced = await rest(h.server, { apiKey: h.key }, "POST", "/topics/profiles/records", {
      records: [{ key: str("user-1"), value: str("hello") }],
    });
    expect(produced.status).toBe(200);
    const partition = partitionForKey(Buffer.from("user-1"), 3);
    expect(produced.body).toEqual({ results: [{ partition, offset: 0 }] });

    const read = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/profiles/partitions/${partition}/records?offset=0`,
    );
    expect(read.status).toBe(200);
    expect(read.body.records).toEqual([
      { offset: 0, timestamp: expect.any(Number), key: str("user-1"), value: str("hello"), headers: [] },
    ]);
    expect(read.body.nextOffset).toBe(1);

    const usage = await rest(h.server, { apiKey: h.key }, "GET", "/tenant/usage");
    expect(usage.body.today).toEqual({ producedRecords: 1, producedBytes: "user-1hello".length });

    const topic = await h.db.prisma.topic.findFirstOrThrow({ where: { name: "profiles" } });
    expect(existsSync(join(h.dataDir, h.organizationId, topic.id, String(partition)))).toBe(true);
  });

  it("keeps a tombstone (null) apart from an empty value, and round-trips json, base64 and headers", async () => {
    const records = [
      { key: str("k"), value: str("") },
      { key: str("k"), value: null },
      { key: str("k"), value: { type: "json", data: { n: 1, tags: ["a"] } } },
      { key: str("k"), value: { type: "base64", data: Buffer.from([0, 255, 1]).toString("base64") } },
      {
        key: str("k"),
        value: str("h"),
        headers: [
          { key: "trace", value: str("t-1") },
          { key: "nil", value: null },
        ],
      },
    ];
    const produced = await rest(h.server, { apiKey: h.key }, "POST", "/topics/profiles/records", { records });
    expect(produced.status).toBe(200);
    const results = produced.body.results as { partition: number; offset: number }[];
    const partition = results[0]!.partition;
    expect(results.map((r) => r.partition)).toEqual(Array(5).fill(partition));
    const offsets = results.map((r) => r.offset);
    expect(offsets).toEqual([
      offsets[0]!,
      offsets[0]! + 1,
      offsets[0]! + 2,
      offsets[0]! + 3,
      offsets[0]! + 4,
    ]);

    const read = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/profiles/partitions/${partition}/records?offset=${offsets[0]}&valueFormat=json`,
    );
    const values = (read.body.records as { value: unknown; headers: unknown }[]).map((r) => r.value);
    // An empty value is a value (not a tombstone): JSON was asked for, so it comes back as empty text.
    expect(values[0]).toEqual({ type: "string", data: "" });
    expect(values[1]).toBeNull();
    expect(values[2]).toEqual({ type: "json", data: { n: 1, tags: ["a"] } });
    expect(values[3]).toEqual({ type: "base64", data: "AP8B" });
    expect((read.body.records as { headers: unknown }[])[4]!.headers).toEqual([
      { key: "trace", value: str("t-1") },
      { key: "nil", value: null },
    ]);
  });

  it("refuses a null key on a compacted topic with 422 naming the record, writing nothing", async () => {
    const partition = partitionForKey(Buffer.from("only-me"), 3);
    const before = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/profiles/partitions/${partition}/records`,
    );
    const refused = await rest(h.server, { apiKey: h.key }, "POST", "/topics/profiles/records", {
      records: [{ key: str("only-me"), value: str("v") }, { value: str("no key") }],
    });
    expect(refused.status).toBe(422);
    expect(refused.contentType).toBe("application/problem+json");
    expect(refused.body).toMatchObject({ code: "NULL_KEY_ON_COMPACTED_TOPIC", index: 1 });
    expect(String(refused.body.detail)).toContain("Record 1");
    const after = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/profiles/partitions/${partition}/records`,
    );
    expect(after.body.logEndOffset).toBe(before.body.logEndOffset);
  });

  it("answers 207 with per-record errors when only some partitions accept the batch", async () => {
    const created = await rest(h.server, { apiKey: h.key }, "POST", "/topics", {
      name: "sized",
      partitions: 2,
      configs: { "max.message.bytes": 2000 },
    });
    expect(created.status).toBe(201);
    const keys = ["a", "b", "c", "d", "e"];
    const small = keys.find((k) => partitionForKey(Buffer.from(k), 2) === 0)!;
    const large = keys.find((k) => partitionForKey(Buffer.from(k), 2) === 1)!;
    const res = await rest(h.server, { apiKey: h.key }, "POST", "/topics/sized/records", {
      records: [
        { key: str(small), value: str("fits") },
        { key: str(large), value: str("x".repeat(5000)) },
      ],
    });
    expect(res.status).toBe(207);
    const [ok, failed] = res.body.results as {
      partition: number;
      offset?: number;
      error?: { code: string };
    }[];
    expect(ok).toEqual({ partition: 0, offset: 0 });
    expect(failed).toMatchObject({ partition: 1, error: { code: "RECORD_TOO_LARGE", status: 413 } });
    expect(failed!.offset).toBeUndefined();
  });

  it("answers unknown partitions and offsets past the end with problem documents", async () => {
    const noPartition = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      "/topics/profiles/partitions/9/records",
    );
    expect(noPartition.status).toBe(404);
    expect(noPartition.body.code).toBe("PARTITION_NOT_FOUND");
    const badEnvelope = await rest(h.server, { apiKey: h.key }, "POST", "/topics/profiles/records", {
      records: [{ key: str("k"), value: { type: "base64", data: "***" } }],
    });
    expect(badEnvelope.status).toBe(400);
    expect(badEnvelope.body.code).toBe("INVALID_INPUT");
    expect(String(badEnvelope.body.detail)).toContain("records[0].value");
  });
});

describe("keys, idempotency and consumer groups", () => {
  it("DELETE /topics/{topic}/keys/{key} writes a tombstone and answers where", async () => {
    const deleted = await rest(h.server, { apiKey: h.key }, "DELETE", "/topics/profiles/keys/user-1");
    expect(deleted.status).toBe(200);
    const partition = partitionForKey(Buffer.from("user-1"), 3);
    expect(deleted.body).toEqual({ partition, offset: expect.any(Number) });
    const read = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/profiles/partitions/${partition}/records?offset=${deleted.body.offset}`,
    );
    expect((read.body.records as unknown[])[0]).toMatchObject({ key: str("user-1"), value: null });
  });

  it("answers a retried produce with the same Idempotency-Key without writing twice", async () => {
    const body = { records: [{ key: str("idem"), value: str("once") }] };
    const headers = { "idempotency-key": "req-42" };
    const first = await rest(h.server, { apiKey: h.key }, "POST", "/topics/profiles/records", body, headers);
    const second = await rest(h.server, { apiKey: h.key }, "POST", "/topics/profiles/records", body, headers);
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const { partition, offset } = (first.body.results as { partition: number; offset: number }[])[0]!;
    const read = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/profiles/partitions/${partition}/records?offset=${offset}`,
    );
    expect(read.body.logEndOffset).toBe(offset + 1);
    const other = await rest(
      h.server,
      { apiKey: h.key },
      "POST",
      "/topics/profiles/records",
      { records: [{ key: str("idem"), value: str("x") }] },
      headers,
    );
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("commits consumer-group offsets and reports lag against the log end", async () => {
    const partition = partitionForKey(Buffer.from("user-1"), 3);
    const committed = await rest(h.server, { apiKey: h.key }, "POST", "/consumer-groups/billing/offsets", {
      offsets: [{ topic: "profiles", partition, offset: 1 }],
    });
    expect(committed.status).toBe(200);
    expect(committed.body).toEqual({ group: "billing", committed: 1 });
    const group = await rest(h.server, { apiKey: h.key }, "GET", "/consumer-groups/billing");
    expect(group.status).toBe(200);
    const [entry] = group.body.offsets as { offset: number; logEndOffset: number; lag: number }[];
    expect(entry).toMatchObject({ offset: 1 });
    expect(entry!.lag).toBe(entry!.logEndOffset - 1);
    expect(entry!.logEndOffset).toBeGreaterThan(1);

    const missing = await rest(h.server, { apiKey: h.key }, "POST", "/consumer-groups/billing/offsets", {
      offsets: [{ topic: "nope", partition: 0, offset: 1 }],
    });
    expect(missing.status).toBe(404);
    expect((await rest(h.server, { apiKey: h.key }, "GET", "/consumer-groups/none")).status).toBe(404);
  });
});

describe("describe", () => {
  it("warns when a compacted topic's recent keys are all distinct, and not when they repeat", async () => {
    for (const [name, keyOf] of [
      ["uniq", (i: number) => `k-${i}`],
      ["repeat", (i: number) => `k-${i % 5}`],
    ] as const) {
      await rest(h.server, { apiKey: h.key }, "POST", "/topics", { name, preset: "state-table" });
      const records = Array.from({ length: 150 }, (_, i) => ({ key: str(keyOf(i)), value: str("v") }));
      expect(
        (await rest(h.server, { apiKey: h.key }, "POST", `/topics/${name}/records`, { records })).status,
      ).toBe(200);
    }
    const uniq = await rest(h.server, { apiKey: h.key }, "GET", "/topics/uniq");
    expect((uniq.body.warnings as { code: string }[]).map((w) => w.code)).toContain("KEYS_LOOK_UNIQUE");
    const repeat = await rest(h.server, { apiKey: h.key }, "GET", "/topics/repeat");
    expect((repeat.body.warnings as { code: string }[]).map((w) => w.code)).not.toContain("KEYS_LOOK_UNIQUE");
    expect(repeat.body.partitionDetails).toEqual([
      expect.objectContaining({ partition: 0, ownerWorkerId: h.worker.id }),
    ]);
  });
});
