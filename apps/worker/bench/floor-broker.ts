/**
 * The floor under the Kafka bench's librdkafka rows: a trivial broker in the bench process, with
 * no product code on the data path, that serves Fetch from whole stored batches held in memory
 * (the same segment files the worker serves, loaded once) and answers Produce after one write and
 * fdatasync of the batch bytes as received. Plaintext, no SASL, one node, one connection's requests
 * answered in order. What a client takes against it is its own cost plus one loopback hop: the
 * least any broker could give it.
 */
import { closeSync, fdatasyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { basename, dirname } from "node:path";
import {
  ApiKey,
  type DecodedRequest,
  decodeRequest,
  encodeResponse,
  FrameReader,
  MAX_FRAME_BYTES,
} from "@lastword/kafka-protocol";
import { inflateBatch, RecordBatchWalk, readBatchHeader } from "@lastword/record-batch";
import { keptBatch, passesWhole } from "../src/kafka/latest-batches";

const FLOOR_APIS = [
  { apiKey: ApiKey.Produce, minVersion: 3, maxVersion: 9 },
  { apiKey: ApiKey.Fetch, minVersion: 4, maxVersion: 12 },
  { apiKey: ApiKey.ListOffsets, minVersion: 1, maxVersion: 7 },
  { apiKey: ApiKey.Metadata, minVersion: 1, maxVersion: 12 },
  { apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 3 },
];

/** One partition's batches, concatenated as on disk, with each batch's position and last offset. */
class MemoryPartition {
  readonly bytes: Buffer;
  readonly positions: number[] = [];
  readonly lastOffsets: number[] = [];
  readonly startOffset: number;
  readonly endOffset: number;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    let start = 0;
    for (let pos = 0; pos < bytes.length; ) {
      const header = readBatchHeader(bytes, pos);
      if (this.positions.length === 0) start = header.baseOffset;
      this.positions.push(pos);
      this.lastOffsets.push(header.lastOffset);
      pos += header.sizeBytes;
    }
    this.startOffset = start;
    this.endOffset = (this.lastOffsets.at(-1) ?? -1) + 1;
  }

  /** Whole batches from the one holding `offset`, within `maxBytes` (the first always whole). */
  read(offset: number, maxBytes: number): Buffer {
    let lo = 0;
    let hi = this.lastOffsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.lastOffsets[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.positions.length) return Buffer.alloc(0);
    const from = this.positions[lo]!;
    let to = this.positions[lo + 1] ?? this.bytes.length;
    for (let i = lo + 2; i <= this.positions.length; i++) {
      const next = this.positions[i] ?? this.bytes.length;
      if (next - from > maxBytes) break;
      to = next;
    }
    return this.bytes.subarray(from, to);
  }
}

/** A topic's partitions from its segment files (`…/<index>/<base>.log`, read in name order). */
export function memoryTopic(files: readonly string[]): MemoryPartition[] {
  const byIndex = new Map<number, string[]>();
  for (const file of files) {
    const index = Number(basename(dirname(file)));
    byIndex.set(index, [...(byIndex.get(index) ?? []), file]);
  }
  return [...byIndex.keys()]
    .sort((a, b) => a - b)
    .map(
      (index) =>
        new MemoryPartition(
          Buffer.concat(
            byIndex
              .get(index)!
              .sort()
              .map((f) => readFileSync(f)),
          ),
        ),
    );
}

/**
 * What the worker's `<topic>.latest` view serves of `topic` frozen at its end, as stored batches in
 * memory: each key's latest record (tombstones included), the batches holding only such records as
 * stored and the others rebuilt by the view's own `keptBatch`. The floor under the view's rows:
 * the client's cost for exactly the view's bytes, without the listener.
 */
export function memoryView(topic: readonly MemoryPartition[], nowMs = Date.now()): MemoryPartition[] {
  return topic.map((partition) => {
    const { bytes } = partition;
    const latest = new Map<string, number>();
    const walk = new RecordBatchWalk();
    for (const pos of partition.positions) {
      const plain = inflateBatch(bytes, pos);
      walk.reset(plain, 0, readBatchHeader(plain, 0).sizeBytes);
      walk.nextBatch();
      while (walk.nextRecord()) {
        latest.set(Buffer.from(plain.subarray(walk.keyStart, walk.keyEnd)).toString("latin1"), walk.offset);
      }
    }
    const offsets = Float64Array.from([...latest.values()].sort((a, b) => a - b));
    const rule = { end: partition.endOffset, nowMs };
    const kept: Buffer[] = [];
    let i = 0;
    for (const [b, pos] of partition.positions.entries()) {
      const first = i;
      while (i < offsets.length && offsets[i]! <= partition.lastOffsets[b]!) i++;
      if (i === first) continue;
      const size = readBatchHeader(bytes, pos).sizeBytes;
      const batch = passesWhole(bytes, pos, i - first, rule)
        ? bytes.subarray(pos, pos + size)
        : keptBatch(bytes, pos, offsets.subarray(first, i), rule);
      if (batch) kept.push(batch);
    }
    return new MemoryPartition(Buffer.concat(kept));
  });
}

export interface FloorBroker {
  bootstrap: string;
  close(): Promise<void>;
}

/**
 * `topics` are served read-only; `produceFile` is where a Produce to any other topic (partition 0)
 * is written, one write and fdatasync per partition's records.
 */
export async function startFloorBroker(options: {
  topics: Record<string, MemoryPartition[]>;
  produceFile: string;
}): Promise<FloorBroker> {
  const produceFd = openSync(options.produceFile, "w");
  let produced = 0;
  const sockets = new Set<Socket>();
  let port = 0;

  const answer = async (request: DecodedRequest): Promise<object> => {
    switch (request.apiKey) {
      case ApiKey.ApiVersions:
        return { errorCode: 0, apiKeys: FLOOR_APIS, throttleTimeMs: 0 };
      case ApiKey.Metadata: {
        const wanted = request.body.topics?.map((t) => t.name!) ?? Object.keys(options.topics);
        return {
          throttleTimeMs: 0,
          brokers: [{ nodeId: 1, host: "127.0.0.1", port, rack: null }],
          clusterId: "floor",
          controllerId: 1,
          topics: wanted.map((name) => {
            const count = options.topics[name]?.length ?? 1;
            return {
              errorCode: 0,
              name,
              isInternal: false,
              partitions: Array.from({ length: count }, (_, index) => ({
                errorCode: 0,
                partitionIndex: index,
                leaderId: 1,
                leaderEpoch: -1,
                replicaNodes: [1],
                isrNodes: [1],
                offlineReplicas: [],
              })),
            };
          }),
        };
      }
      case ApiKey.ListOffsets:
        return {
          throttleTimeMs: 0,
          topics: request.body.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => {
              const log = options.topics[t.name]?.[p.partitionIndex];
              const end = log?.endOffset ?? produced;
              const offset = p.timestamp === -2n ? (log?.startOffset ?? 0) : end;
              return {
                partitionIndex: p.partitionIndex,
                errorCode: 0,
                timestamp: -1n,
                offset: BigInt(offset),
                leaderEpoch: -1,
              };
            }),
          })),
        };
      case ApiKey.Fetch: {
        let budget = request.body.maxBytes;
        const responses = request.body.topics.map((t) => ({
          topic: t.topic,
          partitions: t.partitions.map((p) => {
            const log = options.topics[t.topic]![p.partition]!;
            const records =
              budget > 0
                ? log.read(Number(p.fetchOffset), Math.min(p.partitionMaxBytes, budget))
                : Buffer.alloc(0);
            budget -= records.length;
            const mark = BigInt(log.endOffset);
            return {
              partitionIndex: p.partition,
              errorCode: 0,
              highWatermark: mark,
              lastStableOffset: mark,
              logStartOffset: BigInt(log.startOffset),
              abortedTransactions: [],
              preferredReadReplica: -1,
              records,
            };
          }),
        }));
        // Nothing new ever arrives: at the end, the long poll waits its whole maxWaitMs, as a broker's does.
        if (budget === request.body.maxBytes) {
          await new Promise((resolve) => setTimeout(resolve, request.body.maxWaitMs));
        }
        return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses };
      }
      case ApiKey.Produce:
        return {
          throttleTimeMs: 0,
          responses: request.body.topicData.map((t) => ({
            name: t.name,
            partitionResponses: t.partitionData.map((p) => {
              const records = p.records as Buffer;
              writeSync(produceFd, records);
              fdatasyncSync(produceFd);
              const baseOffset = produced;
              for (let pos = 0; pos < records.length; ) {
                const header = readBatchHeader(records, pos);
                produced += header.lastOffset - header.baseOffset + 1;
                pos += header.sizeBytes;
              }
              return {
                index: p.index,
                errorCode: 0,
                baseOffset: BigInt(baseOffset),
                logAppendTimeMs: -1n,
                logStartOffset: 0n,
                recordErrors: [],
                errorMessage: null,
              };
            }),
          })),
        };
      default:
        throw new Error(`floor broker: API ${request.apiKey} not served`);
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    const reader = new FrameReader({ maxFrameBytes: MAX_FRAME_BYTES });
    let queue = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      reader.push(chunk);
      for (let frame = reader.next(); frame; frame = reader.next()) {
        const request = decodeRequest(frame);
        queue = queue.then(async () => {
          const body = await answer(request);
          socket.write(
            encodeResponse(request.apiKey, request.apiVersion, request.header.correlationId, body as never),
          );
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  return {
    bootstrap: `127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      closeSync(produceFd);
    },
  };
}
