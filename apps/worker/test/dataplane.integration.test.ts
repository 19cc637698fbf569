import { get, type IncomingMessage } from "node:http";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import {
  DataPlaneClient,
  DataPlaneError,
  dataPlanePath,
  decodeRecordBatch,
  FETCH_LOG_END_HEADER,
  SECRET_HEADER,
  type StreamMode,
  splitStreamFrames,
} from "@lastword/dataplane";
import { encodeRecordFrames, STREAM_CONTENT_TYPE } from "@lastword/frames";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { createTestPartition, createTestTopic } from "./test-topics";
import { useWorkerHarness } from "./worker-harness";

const SECRET = "dataplane-test-secret";
const harness = useWorkerHarness({ name: "dataplane", secret: SECRET });
let worker: RunningWorker;

beforeAll(async () => {
  worker = await harness.startWorker();
});

describe("data plane through DataPlaneClient", () => {
  it("round-trips keys, null and empty values, timestamps and headers with per-record offsets", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, { "cleanup.policy": "compact" });
    const produced = await harness.client.produce({
      partitionId,
      records: [
        { key: Buffer.from("user-1"), value: Buffer.from("hello"), timestamp: 1_700_000_000_000 },
        { key: Buffer.from("user-2"), value: null, headers: [{ key: "h", value: Buffer.from([0, 255]) }] },
        { key: Buffer.from("user-3"), value: Buffer.alloc(0), headers: [{ key: "n", value: null }] },
      ],
    });
    expect(produced).toEqual({ baseOffset: 0, offsets: [0, 1, 2] });

    const fetched = await harness.client.fetch({ partitionId, offset: 0 });
    expect(fetched.nextOffset).toBe(3);
    expect(fetched.logStartOffset).toBe(0);
    expect(fetched.logEndOffset).toBe(3);
    const [first, tombstone, empty] = fetched.records;
    expect(first).toMatchObject({ offset: 0, timestamp: 1_700_000_000_000, headers: [] });
    expect(first!.key).toEqual(Buffer.from("user-1"));
    expect(first!.value).toEqual(Buffer.from("hello"));
    expect(tombstone!.value).toBeNull();
    expect(tombstone!.headers).toEqual([{ key: "h", value: Buffer.from([0, 255]) }]);
    expect(empty!.value).toEqual(Buffer.alloc(0));
    expect(empty!.headers).toEqual([{ key: "n", value: null }]);
  });

  it("an idempotent produce (producer header) resent is answered with its first offsets and written once", async () => {
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    const producer = { producerId: 2 ** 52 + 7, producerEpoch: 0, baseSequence: 0 };
    const records = [0, 1, 2].map((i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) }));
    expect(await harness.client.produce({ partitionId, records, producer })).toEqual({
      baseOffset: 0,
      offsets: [0, 1, 2],
    });
    expect(await harness.client.produce({ partitionId, records, producer })).toEqual({
      baseOffset: 0,
      offsets: [0, 1, 2],
      duplicate: true,
    });
    await expect(
      harness.client.produce({ partitionId, records: records.slice(0, 1), producer }),
    ).rejects.toMatchObject({
      code: "OUT_OF_ORDER_SEQUENCE",
      writeMayHaveHappened: false,
    });
    expect((await harness.client.listOffsets({ partitionId })).latest).toBe(3);
  });

  it("takes a produce as record frames: the same records, offsets from one append, a cut frame refused", async () => {
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    await harness.client.produce({
      partitionId,
      records: [{ key: Buffer.from("before"), value: Buffer.from("x") }],
    });
    const records = [
      {
        offset: 0,
        timestamp: 1_700_000_000_000,
        key: Buffer.from("a"),
        value: Buffer.from("hello"),
        headers: [],
      },
      {
        offset: 0,
        timestamp: -1,
        key: null,
        value: null,
        headers: [
          { key: "h", value: Buffer.from([0, 255]) },
          { key: "n", value: null },
        ],
      },
      { offset: 0, timestamp: 0, key: Buffer.alloc(0), value: Buffer.alloc(0), headers: [] },
    ];
    // Two frames, sent as separate pieces of one body.
    const frames = [encodeRecordFrames(records.slice(0, 2)), encodeRecordFrames(records.slice(2))];
    const before = Date.now();
    expect(await harness.client.produceFrames({ partitionId, frames, count: 3 })).toEqual({
      baseOffset: 1,
      offsets: [1, 2, 3],
    });
    const fetched = (await harness.client.fetch({ partitionId, offset: 1 })).records;
    expect(fetched.map(({ offset, key, value, headers }) => ({ offset, key, value, headers }))).toEqual(
      records.map(({ key, value, headers }, i) => ({ offset: i + 1, key, value, headers })),
    );
    expect(fetched[0]!.timestamp).toBe(1_700_000_000_000);
    expect(fetched[1]!.timestamp).toBeGreaterThanOrEqual(before); // -1: stamped by the worker
    expect(fetched[2]!.timestamp).toBe(0);

    const whole = encodeRecordFrames(records);
    for (const body of [whole.subarray(0, whole.length - 1), Buffer.from([9, 0, 0, 0, 0])]) {
      await expect(
        harness.client.produceFrames({ partitionId, frames: [body], count: 3 }),
      ).rejects.toMatchObject({
        code: "BAD_REQUEST",
        retriable: false,
      });
    }
    // A count the worker does not confirm is an error, not an acknowledgement of what was sent.
    await expect(
      harness.client.produceFrames({ partitionId, frames: [whole], count: 2 }),
    ).rejects.toMatchObject({
      code: "INTERNAL",
    });
    expect((await harness.client.listOffsets({ partitionId })).latest).toBe(7);
  });

  it("writes the partition's files under <dataDir>/<organizationId>/<topicId>/<index>", async () => {
    const topic = await createTestTopic(harness.db.prisma, { partitions: 2 });
    await harness.client.produce({
      partitionId: topic.partitionIds[1]!,
      records: [{ key: null, value: Buffer.from("x") }],
    });
    const { readdir } = await import("node:fs/promises");
    const files = await readdir(join(harness.dataDir, topic.organizationId, topic.topicId, "1"));
    expect(files).toContain("00000000000000000000.log");
  });

  it("fetches from an offset bounded by limit, and lists offsets and segments", async () => {
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    const base = Date.now();
    for (let batch = 0; batch < 4; batch++) {
      const records = Array.from({ length: 5 }, (_, i) => ({
        key: null,
        value: Buffer.from(`v${batch * 5 + i}`),
        timestamp: base + batch * 1000,
      }));
      await harness.client.produce({ partitionId, records });
    }
    const page = await harness.client.fetch({ partitionId, offset: 7, limit: 4 });
    expect(page.records.map((r) => r.offset)).toEqual([7, 8, 9, 10]);
    expect(page.nextOffset).toBe(11);
    expect(page.records[0]!.value).toEqual(Buffer.from("v7"));

    expect(await harness.client.listOffsets({ partitionId })).toEqual({ earliest: 0, latest: 20 });
    const byTime = await harness.client.listOffsets({ partitionId, timestamp: base + 2000 });
    expect(byTime.timestampOffset).toBe(10);
    const future = await harness.client.listOffsets({ partitionId, timestamp: base + 60_000 });
    expect(future.timestampOffset).toBeNull();

    const { segments, logEndOffset } = await harness.client.segments({ partitionId });
    expect(logEndOffset).toBe(20);
    expect(segments).toHaveLength(1);
    expect(segments[0]).toMatchObject({ baseOffset: 0, records: 20, active: true });
  });

  it("passes the log store's error codes through (null key on a compacted topic, offset out of range)", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, { "cleanup.policy": "compact" });
    const refused = harness.client.produce({
      partitionId,
      records: [{ key: null, value: Buffer.from("v") }],
    });
    await expect(refused).rejects.toMatchObject({ code: "INVALID_RECORD", retriable: false });
    await expect(harness.client.fetch({ partitionId, offset: 5 })).rejects.toMatchObject({
      code: "OFFSET_OUT_OF_RANGE",
    });
  });

  it("refuses calls without the shared secret and names a missing partition", async () => {
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const intruder = new DataPlaneClient({ prisma: harness.db.prisma, secret: "wrong", ownerWaitMs: 5_000 });
    try {
      await expect(intruder.fetch({ partitionId: topic.partitionIds[0]!, offset: 0 })).rejects.toMatchObject({
        code: "UNAUTHORIZED",
      });
    } finally {
      intruder.close();
    }
    const missing = harness.client.fetch({ partitionId: "no-such-partition", offset: 0 });
    await expect(missing).rejects.toBeInstanceOf(DataPlaneError);
    await expect(missing).rejects.toMatchObject({ code: "PARTITION_NOT_FOUND" });
  });

  it("answers /healthz without the secret", async () => {
    const response = await fetch(`${worker.address}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, workerId: worker.id });
  });
});

/** Records the worker counted as fetched: it counts a fetch once its last frame is written. */
async function fetchedRecordsCounter(): Promise<number> {
  const text = await (await fetch(`${worker.address}/metrics`)).text();
  const line = /^lastword_dataplane_records_total\{op="fetch"\} (\d+)$/m.exec(text);
  return line ? Number(line[1]) : 0;
}

function rawFetch(partitionId: string, query: Record<string, number>): Promise<IncomingMessage> {
  const url = new URL(dataPlanePath.partition("records", partitionId), worker.address);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return new Promise((resolve, reject) => {
    get(url, { headers: { [SECRET_HEADER]: SECRET } }, resolve).on("error", reject);
  });
}

describe("streamed fetch", () => {
  it("writes a big fetch as bounded batch frames, only as fast as a paused reader takes them", async () => {
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    const value = Buffer.alloc(8 << 10, 7);
    for (let batch = 0; batch < 32; batch++) {
      const records = Array.from({ length: 100 }, (_, i) => ({
        key: Buffer.from(`k${batch * 100 + i}`),
        value,
      }));
      await harness.client.produce({ partitionId, records });
    }
    const before = await fetchedRecordsCounter();
    const incoming = await rawFetch(partitionId, { offset: 0, limit: 10_000, maxBytes: 64 << 20 });
    incoming.pause();
    expect(incoming.statusCode).toBe(200);
    expect(incoming.headers["content-type"]).toBe(STREAM_CONTENT_TYPE);
    expect(incoming.headers["transfer-encoding"]).toBe("chunked");
    expect(incoming.headers["content-length"]).toBeUndefined();
    expect(incoming.headers[FETCH_LOG_END_HEADER]).toBe("3200");
    // 26 MiB of answer against ~4 MiB of socket buffers: a worker that waits for the reader cannot
    // write its last frame (and count the fetch) while nobody reads. Meanwhile the client reads the
    // same partition into one answer: once that one is counted, the paused one still is not.
    const page = await harness.client.fetch({ partitionId, offset: 0, limit: 10_000, maxBytes: 64 << 20 });
    await expect.poll(fetchedRecordsCounter).toBe(before + 3200);

    const frameBytes: number[] = [];
    const offsets: number[] = [];
    let end: { endOffset: number; logStartOffset: number } | null = null;
    for await (const piece of splitStreamFrames(incoming as AsyncIterable<Buffer>)) {
      if (piece.kind === "end") {
        end = piece;
        continue;
      }
      frameBytes.push(piece.parts.reduce((n, part) => n + part.length, 0));
      for (const r of decodeRecordBatch(piece.parts)) {
        // Buffer.equals: an element-wise toEqual over 26 MiB would take the test's whole budget.
        if (!r.value?.equals(value)) throw new Error(`record ${r.offset} came back with another value`);
        offsets.push(r.offset);
      }
    }
    expect(offsets).toEqual(Array.from({ length: 3200 }, (_, i) => i));
    expect(end).toEqual({ kind: "end", endOffset: 3200, logStartOffset: 0 });
    // ~256 KiB per frame (one record may cross it): the body is cut as it is written, not built whole.
    expect(frameBytes.length).toBeGreaterThan(90);
    for (const n of frameBytes) expect(n).toBeLessThanOrEqual((256 << 10) + 2 * (value.length + 64));
    await expect.poll(fetchedRecordsCounter).toBe(before + 2 * 3200);

    // The client's answer holds the same records.
    expect(page.records.map((r) => r.offset)).toEqual(offsets);
    expect(page.records[3199]!.key).toEqual(Buffer.from("k3199"));
    expect(page).toMatchObject({ nextOffset: 3200, logStartOffset: 0, logEndOffset: 3200 });
  });

  it("bounds a fetch exactly: limit in records, maxBytes in stored batch bytes with at least one batch", async () => {
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    for (let i = 0; i < 10; i++) {
      await harness.client.produce({ partitionId, records: [{ key: null, value: Buffer.alloc(1000, i) }] });
    }
    const { segments } = await harness.client.segments({ partitionId });
    const batchBytes = segments[0]!.sizeBytes / 10;
    expect(Number.isInteger(batchBytes)).toBe(true);
    const offsetsOf = async (query: { offset: number; limit?: number; maxBytes?: number }) => {
      const page = await harness.client.fetch({ partitionId, ...query });
      return { offsets: page.records.map((r) => r.offset), nextOffset: page.nextOffset };
    };
    expect(await offsetsOf({ offset: 2, maxBytes: 3 * batchBytes })).toEqual({
      offsets: [2, 3, 4],
      nextOffset: 5,
    });
    expect(await offsetsOf({ offset: 2, maxBytes: 3 * batchBytes - 1 })).toEqual({
      offsets: [2, 3],
      nextOffset: 4,
    });
    expect(await offsetsOf({ offset: 2, maxBytes: 1 })).toEqual({ offsets: [2], nextOffset: 3 });
    expect(await offsetsOf({ offset: 2, limit: 4, maxBytes: 64 << 20 })).toEqual({
      offsets: [2, 3, 4, 5],
      nextOffset: 6,
    });
    const atEnd = await harness.client.fetch({ partitionId, offset: 10 });
    expect(atEnd).toEqual({ records: [], nextOffset: 10, logStartOffset: 0, logEndOffset: 10 });
    await expect(harness.client.fetch({ partitionId, offset: 11 })).rejects.toMatchObject({
      code: "OFFSET_OUT_OF_RANGE",
      retriable: false,
    });
  });

  /**
   * Opens a fetch of the whole partition with the reader paused right after the headers: a worker
   * that streams from the disk has then read at most what the socket buffers (~4 MiB here) and one
   * page hold, far less than the answer.
   */
  async function pausedFetch(partitionId: string) {
    const incoming = await rawFetch(partitionId, { offset: 0, limit: 10_000, maxBytes: 64 << 20 });
    incoming.pause();
    expect(incoming.statusCode).toBe(200);
    return incoming;
  }

  /** The rest of a paused answer: its records (offset, key, value's first byte) and its end frame. */
  async function readAnswer(incoming: IncomingMessage) {
    const records: { offset: number; key: string; fill: number }[] = [];
    let end: { endOffset: number; logStartOffset: number } | null = null;
    for await (const piece of splitStreamFrames(incoming as AsyncIterable<Buffer>)) {
      if (piece.kind === "end") end = { endOffset: piece.endOffset, logStartOffset: piece.logStartOffset };
      else
        for (const r of decodeRecordBatch(piece.parts)) {
          records.push({ offset: r.offset, key: r.key!.toString(), fill: r.value![0]! });
        }
    }
    return { records, end: end! };
  }

  /** `rounds` × `keys` records of 8 KiB (key k<i>, every value byte = round), 100 per produce. */
  async function produceRounds(partitionId: string, rounds: number, keys: number) {
    const all = Array.from({ length: rounds * keys }, (_, n) => ({
      key: Buffer.from(`k${n % keys}`),
      value: Buffer.alloc(8 << 10, Math.floor(n / keys)),
    }));
    for (let i = 0; i < all.length; i += 100)
      await harness.client.produce({ partitionId, records: all.slice(i, i + 100) });
  }

  it("reads the log as it writes: retention under a paused reader ends the answer where the deleted pages begin", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "delete",
      "segment.bytes": String(1 << 20),
    });
    await produceRounds(partitionId, 75, 100); // 7,500 records, ~59 MiB
    const incoming = await pausedFetch(partitionId);
    expect(incoming.headers[FETCH_LOG_END_HEADER]).toBe("7500");
    // Offsets below 6,500 (~51 MiB in) go while the worker is held by the reader. A worker that
    // read the whole answer before its first byte (the old single read) would still send them all.
    expect(await harness.client.deleteRecords({ partitionId, beforeOffset: 6500 })).toEqual({
      logStartOffset: 6500,
    });
    const { records, end } = await readAnswer(incoming);
    const sent = records.length;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(6500);
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: sent }, (_, i) => i));
    expect(records.every((r) => r.fill === Math.floor(r.offset / 100))).toBe(true);
    // The end frame says where the answer stopped and where the log starts now; the next fetch
    // from there is refused with its status, as if the deletion had come before it.
    expect(end).toEqual({ endOffset: sent, logStartOffset: 6500 });
    await expect(harness.client.fetch({ partitionId, offset: sent })).rejects.toMatchObject({
      code: "OFFSET_OUT_OF_RANGE",
    });
    const rest = await harness.client.fetch({ partitionId, offset: 6500, limit: 10_000, maxBytes: 64 << 20 });
    expect(rest.records.map((r) => r.offset)).toEqual(Array.from({ length: 1000 }, (_, i) => 6500 + i));
  });

  it("reads the log as it writes: a cleaner pass under a paused reader leaves a correct, compacted rest", async () => {
    const topic = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
      "segment.bytes": String(1 << 20),
    });
    const { partitionId } = topic;
    const rounds = 30;
    const keys = 200;
    await produceRounds(partitionId, rounds, keys); // 6,000 records, ~47 MiB
    const incoming = await pausedFetch(partitionId);
    expect(incoming.headers[FETCH_LOG_END_HEADER]).toBe(String(rounds * keys));
    await harness.client.requestClean({ partitionId });
    const { records, end } = await readAnswer(incoming);
    expect(end).toEqual({ endOffset: rounds * keys, logStartOffset: 0 });
    // Fewer than were written: the pages after the pass came from the compacted segments.
    expect(records.length).toBeLessThan(rounds * keys);
    for (let i = 1; i < records.length; i++) {
      if (records[i]!.offset <= records[i - 1]!.offset)
        throw new Error(`offset ${records[i]!.offset} out of order`);
    }
    // Every record is what was written at its offset, and every key's latest value is there.
    for (const r of records) {
      expect(r).toEqual({ offset: r.offset, key: `k${r.offset % keys}`, fill: Math.floor(r.offset / keys) });
    }
    const latest = records.filter((r) => r.fill === rounds - 1).map((r) => r.key);
    expect(new Set(latest).size).toBe(keys);
  });

  // "stall": the relay goes silent; the client's requestTimeoutMs (500 ms) is the idle limit.
  it.each(["cut", "stall"] as const)(
    "reports a stream %s after the first bytes as a retriable error, not a short answer",
    async (mode) => {
      const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
      const partitionId = topic.partitionIds[0]!;
      for (let batch = 0; batch < 8; batch++) {
        const records = Array.from({ length: 100 }, () => ({
          key: null,
          value: Buffer.alloc(4 << 10, batch),
        }));
        await harness.client.produce({ partitionId, records });
      }
      // A relay in front of the worker that passes the first 300 KiB of the answer, then cuts or stalls.
      const sockets = new Set<Socket>();
      const relay = createServer((inbound) => {
        const target = new URL(worker.address);
        const outbound = connect(Number(target.port), target.hostname);
        sockets.add(inbound).add(outbound);
        let passed = 0;
        inbound.on("data", (chunk) => outbound.write(chunk));
        outbound.on("data", (chunk: Buffer) => {
          const room = (300 << 10) - passed;
          passed += chunk.length;
          if (room > 0) inbound.write(chunk.subarray(0, room));
          if (passed >= 300 << 10 && mode === "cut") {
            inbound.destroy();
            outbound.destroy();
          }
        });
        inbound.on("error", () => outbound.destroy());
        outbound.on("error", () => inbound.destroy());
      });
      await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
      const relayAddress = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
      await harness.db.prisma
        .$executeRaw`UPDATE "Worker" SET "address" = ${relayAddress} WHERE "id" = ${worker.id}`;
      const viaRelay = new DataPlaneClient({
        prisma: harness.db.prisma,
        secret: SECRET,
        ownerWaitMs: 5_000,
        requestTimeoutMs: 500,
      });
      try {
        const broken = viaRelay.fetch({ partitionId, offset: 0, limit: 10_000, maxBytes: 64 << 20 });
        await expect(broken).rejects.toMatchObject({ code: "PARTITION_UNAVAILABLE", retriable: true });
      } finally {
        viaRelay.close();
        await harness.db.prisma
          .$executeRaw`UPDATE "Worker" SET "address" = ${worker.address} WHERE "id" = ${worker.id}`;
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => relay.close(() => resolve()));
      }
      // The worker is unharmed: the same fetch straight to it is whole.
      const whole = await harness.client.fetch({ partitionId, offset: 0, limit: 10_000, maxBytes: 64 << 20 });
      expect(whole.records).toHaveLength(800);
    },
  );
});

// The worker's partition stream (key-handlers.ts streamPartition) as frames: which kind it sends
// (stored batches, or picked records for a sparse snapshot page) and what they decode to.
const records = (keys: string[], value: (key: string) => Buffer | null) =>
  keys.map((k) => ({ key: Buffer.from(k), value: value(k) }));
const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `k${from + i}`);

/** The stream's frame kinds (first byte), its records' offsets and keys, and its end offset. */
async function streamed(partitionId: string, mode: StreamMode, offset?: number) {
  const kinds: number[] = [];
  const seen: { offset: number; key: string | undefined; value: string | null }[] = [];
  let end: number | null = null;
  for await (const piece of harness.client.streamPartitionPieces({ partitionId, mode, offset })) {
    if (piece.kind === "end") end = piece.endOffset;
    else {
      kinds.push(piece.parts[0]![0]!);
      for (const r of decodeRecordBatch(piece.parts)) {
        seen.push({ offset: r.offset, key: r.key?.toString(), value: r.value?.toString() ?? null });
      }
    }
  }
  return { kinds, seen, end };
}

describe("partition stream frames", () => {
  it("a replay racing appends ends where its records end: never past a batch still being made durable", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, { "cleanup.policy": "compact" });
    const WRITES = 60;
    let written = 0;
    let stop = false;
    const writing = (async () => {
      for (; written < WRITES && !stop; written++) {
        await harness.client.produce({
          partitionId,
          records: records([`k${written}`], () => Buffer.from("v")),
        });
      }
    })();
    try {
      // A tail's polls, as close together as they come: each starts where the last one ended, so an
      // end past what a stream sent would skip those records for good.
      let position = 0;
      while (written < WRITES || position < WRITES) {
        const replay = await streamed(partitionId, "replay", position);
        const end = replay.end!;
        const expected = Array.from({ length: end - position }, (_, i) => position + i);
        expect(replay.seen.map((r) => r.offset)).toEqual(expected);
        position = end;
      }
      expect(position).toBe(WRITES);
    } finally {
      stop = true;
      await writing;
    }
  });

  it("a replay sends the stored batches, from inside the first batch, up to the end it began at", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, { "cleanup.policy": "compact" });
    await harness.client.produce({
      partitionId,
      records: records(keys(0, 10), (k) => Buffer.from(`a-${k}`)),
    });
    await harness.client.produce({ partitionId, records: records(keys(0, 5), (k) => Buffer.from(`b-${k}`)) });
    await harness.client.produce({ partitionId, records: records(["k9"], () => null) });

    const replay = await streamed(partitionId, "replay", 3);
    expect(new Set(replay.kinds)).toEqual(new Set([7]));
    expect(replay.seen.map((r) => r.offset)).toEqual(Array.from({ length: 13 }, (_, i) => 3 + i));
    expect(replay.seen[0]).toEqual({ offset: 3, key: "k3", value: "a-k3" });
    expect(replay.seen.at(-1)).toEqual({ offset: 15, key: "k9", value: null });
    expect(replay.end).toBe(16);
  });

  it("a snapshot sends each key's latest: stored batches with a keep list, picked records for a sparse page", async () => {
    const { partitionId: denseId } = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
    });
    await harness.client.produce({
      partitionId: denseId,
      records: records(keys(0, 10), (k) => Buffer.from(`a-${k}`)),
    });
    await harness.client.produce({
      partitionId: denseId,
      records: records(keys(0, 5), (k) => Buffer.from(`b-${k}`)),
    });
    await harness.client.produce({ partitionId: denseId, records: records(["k9"], () => null) });
    const snapshot = await streamed(denseId, "snapshot");
    // Read from the first live offset (5): 11 records in the page, 9 of them kept.
    expect(snapshot.kinds).toEqual([7]);
    expect(snapshot.seen).toEqual([
      ...keys(5, 9).map((k, i) => ({ offset: 5 + i, key: k, value: `a-${k}` })),
      ...keys(0, 5).map((k, i) => ({ offset: 10 + i, key: k, value: `b-${k}` })),
    ]);
    expect(snapshot.end).toBe(16);

    // k0 written once, k1..k99 three times: a page from offset 0 holds 298 records, 100 kept.
    const { partitionId: sparseId } = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
    });
    await harness.client.produce({
      partitionId: sparseId,
      records: records(keys(0, 100), () => Buffer.from("v0")),
    });
    for (const round of [1, 2]) {
      await harness.client.produce({
        partitionId: sparseId,
        records: records(keys(1, 100), () => Buffer.from(`v${round}`)),
      });
    }
    const picked = await streamed(sparseId, "snapshot");
    expect(picked.kinds).toEqual([4]);
    expect(picked.seen.map((r) => r.offset)).toEqual([0, ...Array.from({ length: 99 }, (_, i) => 199 + i)]);
    expect(picked.seen.slice(1).every((r) => r.value === "v2")).toBe(true);
    expect(picked.end).toBe(298);
  });
});
