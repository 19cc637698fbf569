import { rmSync } from "node:fs";
import { envelope, LastwordApiError, LastwordClient } from "@lastword/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drain, type Harness, PUBLIC_URL, startHarness, startHarnessWorker } from "./api-harness";
import type { WorkerProcess } from "./worker-process";

// The streaming routes' two answers: NDJSON (default) and binary frames
// (Accept: application/vnd.lastword.frames, what the typed client reads) carry the same records and
// offsets, are refused alike, and both report a failure after the 200.
const FRAMES = "application/vnd.lastword.frames";
const NDJSON = "application/x-ndjson";
const TOPIC = "mixed";

let h: Harness;
let worker: WorkerProcess;
let killed = false;
let dataDir: string;
let key: string;
let tenant: { organizationId: string; userId: string };
let binary: LastwordClient;
let ndjson: LastwordClient;

function clientFor(apiKey: string, streamFormat?: "ndjson") {
  return new LastwordClient({
    baseUrl: PUBLIC_URL,
    apiKey,
    fetch: (req) => h.server.handleRest(req),
    ...(streamFormat ? { streamFormat } : {}),
  });
}

function get(path: string, accept: string, apiKey?: string) {
  const headers: Record<string, string> = { accept };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return h.server.handleRest(new Request(`${PUBLIC_URL}/api/v1${path}`, { headers }));
}

beforeAll(async () => {
  h = await startHarness("record_stream");
  ({ worker, dataDir } = await startHarnessWorker(h));
  tenant = await h.server.provisionTenant({
    name: "Streams",
    email: "streams@example.com",
    password: "streams-pass-1",
  });
  ({ key } = await h.server.createApiKey({ ...tenant, name: "streams" }));
  binary = clientFor(key);
  ndjson = clientFor(key, "ndjson");
  await binary.topics.create({ name: TOPIC, partitions: 3, preset: "state-table" });
  // Every kind of record: text, JSON text, bytes that are not UTF-8, an empty value, headers
  // (one null), overwrites and tombstones.
  const batch = [];
  for (let i = 0; i < 90; i++) {
    const k = `k-${i % 25}`;
    if (i % 11 === 0) batch.push({ key: envelope.string(k), value: null });
    else if (i % 7 === 0)
      batch.push({
        key: envelope.bytes(Buffer.from([0xff, i])),
        value: envelope.bytes(Buffer.from([0xfe, 0, i])),
      });
    else if (i % 5 === 0) batch.push({ key: envelope.string(k), value: envelope.string("") });
    else
      batch.push({
        key: envelope.string(k),
        value: i % 2 ? envelope.json({ i, name: "ünï" }) : envelope.string(`v${i}`),
        headers: [
          { key: "trace", value: envelope.string(`t${i}`) },
          { key: "none", value: null },
        ],
      });
  }
  await binary.records.produce(TOPIC, batch);
}, 60_000);

afterAll(async () => {
  if (!killed) await worker?.stop();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("binary frames and NDJSON", () => {
  it("answer the media type asked for; NDJSON stays the default", async () => {
    for (const path of [`/topics/${TOPIC}/records/stream`, `/topics/${TOPIC}/snapshot`]) {
      const asBinary = await get(path, FRAMES, key);
      expect(asBinary.headers.get("content-type")).toBe(FRAMES);
      expect(new Uint8Array(await asBinary.arrayBuffer())[0]).toBe(5); // a partition frame first
      const plain = await get(path, "*/*", key);
      expect(plain.headers.get("content-type")).toBe(NDJSON);
      expect((await plain.text()).trim().split("\n").at(-1)).toMatch(/^\{"end":true,"offsets":/);
    }
  });

  it("carry the same records and offsets, for replay, resumed replay and snapshot", async () => {
    for (const options of [
      { mode: "replay" as const },
      { mode: "replay" as const, offsets: { 0: 3, 2: 1 } },
      { mode: "snapshot" as const },
    ]) {
      const fromBinary = await drain(await binary.stream(TOPIC, options));
      const fromNdjson = await drain(await ndjson.stream(TOPIC, options));
      expect(fromBinary.records.length).toBeGreaterThan(0);
      expect(fromBinary.records).toEqual(fromNdjson.records);
      expect(fromBinary.offsets).toEqual(fromNdjson.offsets);
    }
    const kinds = new Set(
      (await drain(await binary.stream(TOPIC))).records.map(
        (r) => `${r.key?.type}/${r.value?.type ?? "tombstone"}`,
      ),
    );
    expect(kinds).toEqual(new Set(["string/string", "string/tombstone", "base64/base64"]));

    const viaBinary = await binary.replayToMap(TOPIC, { via: "replay" });
    const viaNdjson = await ndjson.replayToMap(TOPIC, { via: "replay" });
    expect(viaBinary.state).toEqual(viaNdjson.state);
    expect(viaBinary.offsets).toEqual(viaNdjson.offsets);
    expect((await binary.replayToMap(TOPIC)).state).toEqual(viaBinary.state);
  });

  it("are refused alike: same status and problem for no key, a key without records:read, another tenant", async () => {
    const { key: metaKey } = await h.server.createApiKey({
      ...tenant,
      name: "meta",
      scopes: ["topics:read"],
    });
    const other = await h.server.provisionTenant({
      name: "Elsewhere",
      email: "elsewhere@example.com",
      password: "elsewhere-pass-1",
    });
    const { key: otherKey } = await h.server.createApiKey({ ...other, name: "o" });
    const cases = [
      { apiKey: undefined, status: 401 },
      { apiKey: metaKey, status: 403, code: "INSUFFICIENT_SCOPE" },
      { apiKey: otherKey, status: 404, code: "TOPIC_NOT_FOUND" },
      { apiKey: "lw_not-a-key", status: 401 },
    ];
    for (const path of [`/topics/${TOPIC}/records/stream`, `/topics/${TOPIC}/snapshot`]) {
      for (const { apiKey, status, code } of cases) {
        const answers = await Promise.all([get(path, FRAMES, apiKey), get(path, NDJSON, apiKey)]);
        const bodies = await Promise.all(answers.map((a) => a.json()));
        for (const answer of answers) {
          expect(answer.status, path).toBe(status);
          expect(answer.headers.get("content-type")).toBe("application/problem+json");
        }
        expect(bodies[0]).toEqual(bodies[1]);
        if (code) expect(bodies[0]).toMatchObject({ code });
      }
    }
    await expect(clientFor(otherKey).replayToMap(TOPIC)).rejects.toMatchObject({ status: 404 });
  });

  it("a snapshot of a dirty log larger than one worker read skips the superseded stretches and equals replay", async () => {
    await binary.topics.create({ name: "dirty", partitions: 1, preset: "state-table" });
    const value = (round: number) => envelope.string(`${round}:${"y".repeat(1000)}`);
    await binary.records.produce("dirty", [{ key: envelope.string("early"), value: value(-1) }]);
    // Six overwrites of the same 900 keys (~5.4 MB, more than one 4 MiB read), then one more key.
    for (let round = 0; round < 6; round++) {
      const records = Array.from({ length: 900 }, (_, i) => ({
        key: envelope.string(`d-${i}`),
        value: value(round),
      }));
      await binary.records.produce("dirty", records);
    }
    await binary.records.produce("dirty", [{ key: envelope.string("late"), value: value(7) }]);
    const snapshot = await drain(await binary.stream("dirty", { mode: "snapshot" }));
    expect(snapshot.records.map((r) => r.offset)).toEqual([
      0,
      ...Array.from({ length: 900 }, (_, i) => 4501 + i),
      5401,
    ]);
    const replayed = await ndjson.replayToMap("dirty", { via: "replay" });
    expect(new Map(snapshot.records.map((r) => [r.key?.data, r.value]))).toEqual(replayed.state);
    expect(snapshot.offsets).toEqual(replayed.offsets);
  });

  it("a tail racing produces on several partitions delivers every record once, in order, in both formats", async () => {
    await binary.topics.create({ name: "racing", partitions: 3, preset: "state-table" });
    const { offsets } = await binary.replayToMap("racing");
    const WRITES = 40;
    const abort = new AbortController();
    // A tail that stops following must fail with what it saw, not hang the suite.
    const stalled = setTimeout(() => abort.abort(), 30_000);
    const follow = async (client: LastwordClient) => {
      const seen: { key: unknown; partition: number; offset: number }[] = [];
      for await (const r of client.tail("racing", offsets, { waitMs: 2_000, signal: abort.signal })) {
        seen.push({ key: r.key?.data, partition: r.partition, offset: r.offset });
        if (seen.length === WRITES) break;
      }
      return seen;
    };
    const following = [follow(binary), follow(ndjson)];
    // One record per produce, back to back: the tails' short polls keep meeting appends in flight.
    for (let i = 0; i < WRITES; i++) {
      await binary.records.produce("racing", [
        { key: envelope.string(`r-${i}`), value: envelope.string(`${i}`) },
      ]);
    }
    const tails = await Promise.all(following);
    clearTimeout(stalled);
    for (const seen of tails) {
      expect(seen.map((r) => r.key).sort()).toEqual(
        Array.from({ length: WRITES }, (_, i) => `r-${i}`).sort(),
      );
      for (const p of [0, 1, 2]) {
        const mine = seen.filter((r) => r.partition === p).map((r) => r.offset);
        expect(mine).toEqual(Array.from({ length: mine.length }, (_, i) => i));
      }
    }
  });

  it("report a failure after the 200 in both: the worker dies mid-stream", async () => {
    // Enough bytes in one partition that the worker is still scanning (held by backpressure): more
    // than the socket buffers of both hops and the web's read-ahead can hold (~45 MB against ~15).
    await binary.topics.create({ name: "big", partitions: 1, preset: "state-table" });
    const value = envelope.string("x".repeat(1000));
    for (let round = 0; round < 50; round++) {
      // ~0.9 MB per call: one produce is one batch, under max.message.bytes (1 MiB).
      const records = Array.from({ length: 900 }, (_, i) => ({
        key: envelope.string(`big-${round}-${i}`),
        value,
      }));
      await binary.records.produce("big", records);
    }
    const streams = [await binary.stream("big"), await ndjson.stream("big")];
    for (const stream of streams) expect((await stream.next()).done).toBe(false);
    await worker.kill();
    killed = true;
    for (const stream of streams) {
      const error = await drain(stream).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LastwordApiError);
      expect(error).toMatchObject({ status: 503, code: "PARTITION_UNAVAILABLE" });
    }
  });
});
