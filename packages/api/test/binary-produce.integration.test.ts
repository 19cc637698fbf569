import { encodeProduceFrames, envelope, LastwordClient, type ProduceRecord } from "@lastword/client";
import { DataPlaneClient } from "@lastword/dataplane";
import { FRAME_LAYOUTS } from "@lastword/frames";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { forgetTenantQuota } from "../src/services/rate-limit.service";
import { createQuota, PUBLIC_URL, provisionTenantKey, rest } from "./api-harness";
import { createTopic, issueKey, useTenantWorld } from "./tenant-world";

// POST /topics/{topic}/records with an application/vnd.lastword.frames body: same records, same
// answers and same refusals as the JSON body.
const h = useTenantWorld("binary_produce");
let otherTenantKey: string;
let readOnlyKey: string;
const contentTypes: string[] = [];

const FRAMES = "application/vnd.lastword.frames";

function clientFor(apiKey: string, produceFormat: "binary" | "json") {
  return new LastwordClient({
    baseUrl: PUBLIC_URL,
    apiKey,
    produceFormat,
    fetch: (req) => {
      contentTypes.push(req.headers.get("content-type") ?? "");
      return h.server.handleRest(req);
    },
  });
}

const createEventsTopic = (name: string) =>
  createTopic(h, h.key, { name, partitions: 3, configs: { "cleanup.policy": "delete" } });

type ProblemBody = { code: string; detail: string };

function postFrames(apiKey: string, topic: string, body: Uint8Array, headers: Record<string, string> = {}) {
  return h.server.handleRest(
    new Request(`${PUBLIC_URL}/api/v1/topics/${topic}/records`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": FRAMES, ...headers },
      body,
    }),
  );
}

/** Every stored record of the topic, per partition, as the read route shows them. */
async function stored(topic: string) {
  const partitions = [];
  for (let p = 0; p < 3; p++) {
    const read = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/${topic}/partitions/${p}/records?offset=0`,
    );
    expect(read.status).toBe(200);
    partitions.push(read.body.records as { timestamp: number }[]);
  }
  return partitions;
}

async function usage() {
  const answer = await rest(h.server, { apiKey: h.key }, "GET", "/tenant/usage");
  const today = answer.body.today as { producedRecords?: number; producedBytes?: number };
  return { records: today.producedRecords ?? 0, bytes: today.producedBytes ?? 0 };
}

const TIMESTAMP = 1_700_000_000_123;
const RECORDS: ProduceRecord[] = [
  {
    key: envelope.string("a"),
    value: envelope.string("hello"),
    timestamp: TIMESTAMP,
    headers: [
      { key: "trace", value: envelope.string("t-1") },
      { key: "empty", value: envelope.string("") },
      { key: "none", value: null },
    ],
  },
  { key: envelope.string("b"), value: envelope.string("") },
  { key: envelope.string("c"), value: null },
  {
    key: envelope.bytes(Uint8Array.from([0, 255, 1])),
    value: envelope.bytes(Uint8Array.from([9, 0])),
    partition: 2,
  },
  { key: null, value: envelope.string("keyless"), partition: 1 },
  { key: envelope.string(""), value: envelope.json({ n: 1, s: "x" }), partition: 1, timestamp: 0 },
  { key: envelope.string("e"), value: envelope.string("routed by key again") },
];

beforeAll(async () => {
  readOnlyKey = await issueKey(h, "ro", ["records:read", "topics:read"]);
  otherTenantKey = (await provisionTenantKey(h.server, "Other")).key;
  for (const topic of ["via-json", "via-frames", "untouched"]) await createEventsTopic(topic);
});

describe("binary produce body", () => {
  it("stores the same records and answers the same results as the JSON body, counted the same", async () => {
    const start = await usage();
    const json = await clientFor(h.key, "json").records.produce("via-json", RECORDS);
    const afterJson = await usage();
    contentTypes.length = 0;
    const frames = await clientFor(h.key, "binary").records.produce("via-frames", RECORDS);
    expect(contentTypes).toEqual([FRAMES]);
    const afterFrames = await usage();

    expect(frames).toEqual(json);
    expect(frames.results).toHaveLength(RECORDS.length);
    expect(frames.results[3]).toEqual({ partition: 2, offset: expect.any(Number) });
    expect(frames.results.slice(4, 6).map((r) => r.partition)).toEqual([1, 1]);
    expect(afterJson.records - start.records).toBe(RECORDS.length);
    expect(afterFrames.records - afterJson.records).toBe(RECORDS.length);
    expect(afterFrames.bytes - afterJson.bytes).toBe(afterJson.bytes - start.bytes);

    const fromJson = await stored("via-json");
    const fromFrames = await stored("via-frames");
    const withoutServerTimes = (partitions: { timestamp: number }[][]) =>
      partitions.map((records) =>
        records.map((r) =>
          r.timestamp === TIMESTAMP || r.timestamp === 0 ? r : { ...r, timestamp: "server" },
        ),
      );
    expect(withoutServerTimes(fromFrames)).toEqual(withoutServerTimes(fromJson));
    const all = fromFrames.flat() as unknown as Record<string, unknown>[];
    expect(all).toHaveLength(RECORDS.length);
    expect(all).toContainEqual({
      offset: expect.any(Number),
      timestamp: TIMESTAMP,
      key: envelope.string("a"),
      value: envelope.string("hello"),
      headers: [
        { key: "trace", value: envelope.string("t-1") },
        { key: "empty", value: envelope.string("") },
        { key: "none", value: null },
      ],
    });
    expect(all).toContainEqual(
      expect.objectContaining({ key: envelope.string("b"), value: envelope.string("") }),
    );
    expect(all).toContainEqual(expect.objectContaining({ key: envelope.string("c"), value: null }));
    expect(all).toContainEqual(expect.objectContaining({ key: null, value: envelope.string("keyless") }));
    expect(all).toContainEqual(
      expect.objectContaining({
        key: envelope.string(""),
        timestamp: 0,
        value: envelope.string('{"n":1,"s":"x"}'),
      }),
    );
  });

  it("replays the first answer for a repeated Idempotency-Key and writes once", async () => {
    const body = encodeProduceFrames([
      { key: envelope.string("idem"), value: envelope.string("v"), partition: 0 },
    ]);
    const first = await postFrames(h.key, "untouched-idem", body, { "idempotency-key": "k-1" });
    expect(first.status).toBe(404); // no such topic yet: refused, key freed
    await createEventsTopic("untouched-idem");
    const answers = [];
    for (let i = 0; i < 2; i++) {
      const response = await postFrames(h.key, "untouched-idem", body, { "idempotency-key": "k-1" });
      expect(response.status).toBe(200);
      answers.push(await response.json());
    }
    expect(answers[1]).toEqual(answers[0]);
    const partition0 = (await stored("untouched-idem"))[0]!;
    expect(partition0).toHaveLength(1);
    const other = encodeProduceFrames([
      { key: envelope.string("idem"), value: envelope.string("w"), partition: 0 },
    ]);
    const reused = await postFrames(h.key, "untouched-idem", other, { "idempotency-key": "k-1" });
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as ProblemBody).code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("refuses truncated, garbage, empty and oversized bodies with a 400/413 problem and writes nothing", async () => {
    const whole = encodeProduceFrames(RECORDS);
    const cases: { body: Uint8Array; status: number; code: string; detail: RegExp }[] = [
      {
        body: whole.subarray(0, whole.length - 3),
        status: 400,
        code: "MALFORMED_REQUEST",
        detail: /batch frame at byte \d+ declares/,
      },
      {
        body: whole.subarray(0, 3),
        status: 400,
        code: "MALFORMED_REQUEST",
        detail: /ends inside the header/,
      },
      {
        body: Buffer.from("not frames at all"),
        status: 400,
        code: "MALFORMED_REQUEST",
        detail: /unknown kind 110/,
      },
      {
        // A whole frame whose first record claims a key longer than the frame.
        body: Buffer.concat([Buffer.from([4, 0, 0, 0, 20]), Buffer.alloc(16), Buffer.from([0, 0, 1, 0])]),
        status: 400,
        code: "MALFORMED_REQUEST",
        detail: /overruns the frame/,
      },
      { body: new Uint8Array(0), status: 400, code: "INVALID_INPUT", detail: /holds no records/ },
      {
        body: Buffer.alloc(8 * 1024 * 1024 + 1),
        status: 413,
        code: "PAYLOAD_TOO_LARGE",
        detail: /limited to/,
      },
    ];
    for (const c of cases) {
      const response = await postFrames(h.key, "untouched", c.body);
      expect(response.status).toBe(c.status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = (await response.json()) as ProblemBody;
      expect(problem.code).toBe(c.code);
      expect(problem.detail).toMatch(c.detail);
    }
    // A bad timestamp in an otherwise whole body is refused as the JSON schema would.
    const badTime = encodeProduceFrames([{ key: envelope.string("k"), value: null, timestamp: 1.5 }]);
    const refused = await postFrames(h.key, "untouched", badTime);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as ProblemBody).detail).toMatch(/records\[0\]\.timestamp/);
    expect((await stored("untouched")).flat()).toEqual([]);
  });

  it("forwards a body for one partition to the worker as its frames: same records, answers and refusals", async () => {
    const produceFrames = vi.spyOn(DataPlaneClient.prototype, "produceFrames");
    const produceRecords = vi.spyOn(DataPlaneClient.prototype, "produce");
    try {
      await createEventsTopic("one-json");
      await createEventsTopic("one-frames");
      const onePartition = RECORDS.map((r) => ({ ...r, partition: 1 }));
      const json = await clientFor(h.key, "json").records.produce("one-json", onePartition);
      expect(produceRecords).toHaveBeenCalledTimes(1);
      const frames = await clientFor(h.key, "binary").records.produce("one-frames", onePartition);
      expect(produceFrames).toHaveBeenCalledTimes(1);
      expect(produceRecords).toHaveBeenCalledTimes(1);
      expect(frames).toEqual(json);
      const withoutServerTimes = (partitions: { timestamp: number }[][]) =>
        partitions.map((records) =>
          records.map((r) =>
            r.timestamp === TIMESTAMP || r.timestamp === 0 ? r : { ...r, timestamp: "server" },
          ),
        );
      const fromFrames = await stored("one-frames");
      expect(fromFrames[1]).toHaveLength(RECORDS.length);
      expect(withoutServerTimes(fromFrames)).toEqual(withoutServerTimes(await stored("one-json")));

      // Refused before anything is written, with the index the records path names.
      const compacted = await rest(h.server, { apiKey: h.key }, "POST", "/topics", {
        name: "one-compacted",
        partitions: 3,
        configs: { "cleanup.policy": "compact" },
      });
      expect(compacted.status).toBe(201);
      const keyed = (n: number) => ({
        key: envelope.string(`k${n}`),
        value: envelope.string("v"),
        partition: 1,
      });
      const cases = [
        { topic: "one-compacted", records: [keyed(0), keyed(1), { key: null, value: null, partition: 1 }] },
        {
          topic: "one-frames",
          records: [keyed(0), { ...keyed(1), partition: 3 }].map((r) => ({ ...r, partition: 3 })),
        },
      ];
      for (const { topic, records } of cases) {
        const body = encodeProduceFrames(records);
        const asFrames = await postFrames(h.key, topic, body);
        const asJson = await rest(h.server, { apiKey: h.key }, "POST", `/topics/${topic}/records`, {
          records,
        });
        expect(asFrames.status).toBe(asJson.status);
        const problem = (await asFrames.json()) as ProblemBody & { index: number };
        expect(problem).toMatchObject({
          code: asJson.body.code,
          detail: asJson.body.detail,
          index: asJson.body.index,
        });
      }
      expect(produceFrames).toHaveBeenCalledTimes(1);
      expect((await stored("one-compacted")).flat()).toEqual([]);
    } finally {
      produceFrames.mockRestore();
      produceRecords.mockRestore();
    }
  });

  it("answers a key without records:write and another tenant's topic as the JSON body does", async () => {
    const body = encodeProduceFrames([{ key: envelope.string("k"), value: envelope.string("v") }]);
    for (const [apiKey, expected] of [
      [readOnlyKey, { status: 403, code: "INSUFFICIENT_SCOPE" }],
      [otherTenantKey, { status: 404, code: "TOPIC_NOT_FOUND" }],
    ] as const) {
      const json = await rest(h.server, { apiKey }, "POST", "/topics/untouched/records", {
        records: [{ key: envelope.string("k"), value: envelope.string("v") }],
      });
      const frames = await postFrames(apiKey, "untouched", body);
      const problem = (await frames.json()) as ProblemBody;
      expect({ status: frames.status, code: problem.code }).toEqual(expected);
      expect({ status: json.status, code: json.body.code }).toEqual(expected);
      // The scope is checked before the body is read: garbage gets the same refusal.
      const garbage = await postFrames(apiKey, "untouched", Buffer.from([9, 9, 9]));
      expect(garbage.status).toBe(expected.status === 403 ? 403 : 400);
    }
    expect((await stored("untouched")).flat()).toEqual([]);
  });

  it("answers a malformed percent-encoded topic name with a 400 on the binary and streaming routes", async () => {
    const body = encodeProduceFrames([{ key: envelope.string("k"), value: envelope.string("v") }]);
    const produced = await postFrames(h.key, "bad%E0%A4%A", body);
    const streamed = await h.server.handleRest(
      new Request(`${PUBLIC_URL}/api/v1/topics/bad%E0%A4%A/records/stream`, {
        headers: { authorization: `Bearer ${h.key}` },
      }),
    );
    for (const answer of [produced, streamed]) {
      expect(answer.status).toBe(400);
      const problem = (await answer.json()) as ProblemBody;
      expect(problem.code).toBe("INVALID_INPUT");
      expect(problem.detail).toContain("percent-encoding");
    }
  });

  it("is documented in the OpenAPI document beside the JSON body, in the frames package's layouts", async () => {
    const doc = await rest(h.server, {}, "GET", "/openapi.json");
    type Described = { description?: string; schema?: { description?: string } };
    const paths = doc.body.paths as Record<
      string,
      Record<
        string,
        {
          requestBody: { content: Record<string, Described> };
          responses: Record<string, Described>;
        }
      >
    >;
    const body = paths["/topics/{topic}/records"]!.post!.requestBody.content;
    expect(Object.keys(body).sort()).toEqual(["application/json", FRAMES]);
    const produce = body[FRAMES]!.schema!.description!;
    expect(produce).toContain(FRAME_LAYOUTS.partition);
    expect(produce).toContain(FRAME_LAYOUTS.batch);
    const stream = paths["/topics/{topic}/records/stream"]!.get!.responses["200"]!.description!;
    for (const layout of [FRAME_LAYOUTS.partition, FRAME_LAYOUTS.stored, FRAME_LAYOUTS.offsets]) {
      expect(stream).toContain(layout);
    }
  });
});

/**
 * The rate windows each Redis MULTI of the server's connection counted into while `run` ran
 * (metric names of its INCRBYs, e.g. ["produce bytes", "requests"]), one entry per MULTI.
 */
async function multisDuring(run: () => Promise<unknown>): Promise<string[][]> {
  const seen: string[][] = [];
  const redis = h.redis;
  const original = redis.multi;
  redis.multi = ((...args: Parameters<typeof original>) => {
    const multi = original.apply(redis, args);
    const metrics: string[] = [];
    seen.push(metrics);
    const incrby = multi.incrby;
    multi.incrby = ((key: string, amount: number) => {
      metrics.push(key.split(":").at(-2)!);
      return incrby.call(multi, key, amount);
    }) as typeof multi.incrby;
    return multi;
  }) as typeof original;
  try {
    await run();
  } finally {
    redis.multi = original;
  }
  return seen.map((metrics) => metrics.sort());
}

describe("request rate on the produce routes", () => {
  it("counts a produce's request in its admission MULTI: one Redis round trip, JSON and binary alike", async () => {
    await createEventsTopic("one-trip");
    const frames = encodeProduceFrames([{ key: envelope.string("k"), value: envelope.string("v") }]);
    const produced = await multisDuring(async () => {
      expect((await postFrames(h.key, "one-trip", frames)).status).toBe(200);
      const json = await rest(h.server, { apiKey: h.key }, "POST", "/topics/one-trip/records", {
        records: [{ key: { type: "string", data: "k" }, value: { type: "string", data: "v" } }],
      });
      expect(json.status).toBe(200);
    });
    expect(produced).toEqual([
      ["produce bytes", "requests"],
      ["produce bytes", "requests"],
    ]);
    // Requests that never reach admission are still counted, once, after the procedure: a body
    // that does not decode, a key without records:write, a replayed Idempotency-Key; and every
    // other route counts before it runs.
    await postFrames(h.key, "one-trip", frames, { "idempotency-key": "one-trip-1" });
    const others = await multisDuring(async () => {
      expect((await postFrames(h.key, "one-trip", Uint8Array.from([9, 9]))).status).toBe(400);
      expect((await postFrames(readOnlyKey, "one-trip", frames)).status).toBe(403);
      const replay = await postFrames(h.key, "one-trip", frames, { "idempotency-key": "one-trip-1" });
      expect(replay.status).toBe(200);
      expect((await rest(h.server, { apiKey: h.key }, "GET", "/topics/one-trip")).status).toBe(200);
    });
    expect(others).toEqual([["requests"], ["requests"], ["requests"], ["requests"]]);
  });

  it("answers 429 RATE_LIMITED with Retry-After past the request rate and writes nothing it refused", async () => {
    const tenant = await provisionTenantKey(h.server, "Limited");
    const limitedKey = tenant.key;
    const created = await rest(h.server, { apiKey: limitedKey }, "POST", "/topics", {
      name: "limited",
      partitions: 1,
    });
    expect(created.status).toBe(201);
    await createQuota(h.db.prisma, tenant.organizationId, { requestsPerSecond: 3 });
    forgetTenantQuota(h.db.prisma, tenant.organizationId);
    const frames = encodeProduceFrames([{ key: envelope.string("k"), value: envelope.string("v") }]);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? postFrames(limitedKey, "limited", frames)
          : rest(h.server, { apiKey: limitedKey }, "POST", "/topics/limited/records", {
              records: [{ key: { type: "string", data: "k" }, value: { type: "string", data: "v" } }],
            }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    const limited = answers.filter((a) => a.status === 429);
    // 3 per one-second window: at most 6 get through even when the burst straddles two windows.
    expect(limited.length, statuses.join()).toBeGreaterThanOrEqual(4);
    expect(
      statuses.filter((s) => s !== 429).every((s) => s === 200),
      statuses.join(),
    ).toBe(true);
    for (const answer of limited) {
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const body = answer instanceof Response ? ((await answer.json()) as ProblemBody) : answer.body;
      expect(body.code).toBe("RATE_LIMITED");
    }
    // Only the admitted produces were written (read back under a raised limit, applied here at once).
    await h.db.prisma.quota.update({
      where: { organizationId: tenant.organizationId },
      data: { requestsPerSecond: 1000 },
    });
    forgetTenantQuota(h.db.prisma, tenant.organizationId);
    const read = await rest(
      h.server,
      { apiKey: limitedKey },
      "GET",
      "/topics/limited/partitions/0/records?offset=0",
    );
    expect(read.body.records).toHaveLength(10 - limited.length);
  });
});
