import { BINARY_RECORDS_CONTENT_TYPE, encodeBinaryRecords, FRAMES_CONTENT_TYPE } from "@lastword/frames";
import type { z } from "zod";
import type { DataPlane, FetchResult, ListOffsetsResult, ProduceResult } from "./data-plane";
import { DataPlaneError, writeUncertain } from "./errors";
import { type DescribeGroupsResponse, describeGroupsResponseSchema } from "./group-protocol";
import { HttpTransport, type TransportOutcome, type TransportRequest } from "./http-transport";
import {
  type KeyLookupResponse,
  type KeyVersionsResponse,
  keyLookupResponseSchema,
  keyVersionsResponseSchema,
} from "./key-protocol";
import { type LeaseTable, OwnerDirectory, type PartitionOwner } from "./owner-directory";
import { type PartitionStreamRequest, PartitionStreams } from "./partition-stream";
import {
  cleanResponseSchema,
  type DeleteRecordsResponse,
  deleteRecordsResponseSchema,
  errorBodySchema,
  FETCH_LOG_END_HEADER,
  fetchLogEndHeaderSchema,
  formatProducerHeader,
  listOffsetsResponseSchema,
  PRODUCER_HEADER,
  type ProducerFields,
  produceResponseSchema,
  type SegmentsResponse,
  segmentsResponseSchema,
  type TxnMarkerRequest,
  txnMarkerResponseSchema,
} from "./protocol";
import type { FetchedRecord, ProduceRecord } from "./record-codec";
import { dataPlanePath, GROUPS_ROUTE, PARTITION_ROUTES, type PartitionRoute } from "./routes";
import type { StreamFrame, StreamPiece } from "./stream-frames";

export interface DataPlaneClientOptions {
  /** Reads the lease table (Partition → Worker); the Prisma client of `@lastword/db`. */
  prisma: LeaseTable;
  secret: string;
  /** How long a call waits for a partition without a live owner (new or being taken over) to get one. */
  ownerWaitMs?: number;
  requestTimeoutMs?: number;
}

const RESOLVE_RETRY_DELAY_MS = 200;

/**
 * The web side of the data plane: finds a partition's owner through the lease table, forwards the
 * call over HTTP, and retries once when the partition moved. A produce is resent only when the
 * first attempt provably never reached a worker, so an acknowledged write is never doubled by us —
 * or, when it names its producer (idempotent), whenever it is retriable: the log store answers a
 * resend of a batch it holds with the first offsets.
 */
export class DataPlaneClient implements DataPlane {
  readonly #prisma: LeaseTable;
  readonly #owners: OwnerDirectory;
  readonly #transport: HttpTransport;
  readonly #ownerWaitMs: number;
  readonly #requestTimeoutMs: number;
  readonly #streams: PartitionStreams;

  constructor(options: DataPlaneClientOptions) {
    this.#prisma = options.prisma;
    this.#owners = new OwnerDirectory(options.prisma);
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#transport = new HttpTransport(options.secret, this.#requestTimeoutMs);
    this.#ownerWaitMs = options.ownerWaitMs ?? 10_000;
    this.#streams = new PartitionStreams(this.#owners, options.secret, this.#ownerWaitMs);
  }

  async produce(input: {
    partitionId: string;
    records: readonly ProduceRecord[];
    producer?: ProducerFields;
  }): Promise<ProduceResult> {
    const request: TransportRequest = {
      ...routeOf("produce", input.partitionId),
      body: encodeBinaryRecords(input.records),
      contentType: BINARY_RECORDS_CONTENT_TYPE,
    };
    return this.#produce(input.partitionId, withProducer(request, input.producer), input.records.length);
  }

  /**
   * A produce whose records are already record frames (`FRAMES_CONTENT_TYPE`: the batch
   * frames of a binary REST body, forwarded as they are, without a record object per record or a
   * copy of their bytes). `count` is how many records the frames hold; the caller has checked them.
   */
  async produceFrames(input: {
    partitionId: string;
    frames: readonly Uint8Array[];
    count: number;
    producer?: ProducerFields;
  }): Promise<ProduceResult> {
    const request: TransportRequest = {
      ...routeOf("produce", input.partitionId),
      parts: input.frames,
      contentType: FRAMES_CONTENT_TYPE,
    };
    return this.#produce(input.partitionId, withProducer(request, input.producer), input.count);
  }

  async #produce(partitionId: string, request: TransportRequest, sent: number): Promise<ProduceResult> {
    const idempotent = request.headers?.[PRODUCER_HEADER] !== undefined;
    const answer = await this.#call(partitionId, request, produceResponseSchema, idempotent);
    const { baseOffset, count } = answer;
    if (count !== sent) {
      throw new DataPlaneError(
        "INTERNAL",
        `the worker answered ${count} offsets for a produce of ${sent} records`,
      );
    }
    // The wire carries the base offset and count (consecutive offsets, one append); callers get
    // each record's offset as before.
    const offsets = new Array<number>(count);
    for (let i = 0; i < count; i++) offsets[i] = baseOffset + i;
    return answer.duplicate ? { baseOffset, offsets, duplicate: true } : { baseOffset, offsets };
  }

  /**
   * Records from `offset` (bounded by limit and maxBytes on the worker), read off the worker's
   * stream of frames as they arrive. NOT_OWNER/unreachable before the first byte is retried once
   * against the next owner; a stream that breaks off, or goes silent for requestTimeoutMs, is a
   * retriable PARTITION_UNAVAILABLE.
   */
  async fetch(input: {
    partitionId: string;
    offset: number;
    limit?: number;
    maxBytes?: number;
  }): Promise<FetchResult> {
    const query = { offset: input.offset, limit: input.limit, maxBytes: input.maxBytes };
    const path = dataPlanePath.partition("records", input.partitionId);
    const opened = this.#streams.openFrames(input.partitionId, path, query, this.#requestTimeoutMs);
    const { headers, frames } = await opened;
    const logEnd = fetchLogEndHeaderSchema.safeParse(headers[FETCH_LOG_END_HEADER]);
    const records: FetchedRecord[] = [];
    for await (const frame of frames) {
      if (frame.kind === "records") {
        for (const record of frame.records) records.push(record);
        continue;
      }
      if (!logEnd.success) break;
      return {
        records,
        nextOffset: frame.endOffset,
        logStartOffset: frame.logStartOffset,
        logEndOffset: logEnd.data,
      };
    }
    throw new DataPlaneError("INTERNAL", `a fetch answer without ${FETCH_LOG_END_HEADER}`);
  }

  async listOffsets(input: { partitionId: string; timestamp?: number }): Promise<ListOffsetsResult> {
    const request: TransportRequest = {
      ...routeOf("offsets", input.partitionId),
      query: { timestamp: input.timestamp },
    };
    return this.#call(input.partitionId, request, listOffsetsResponseSchema, true);
  }

  async segments(input: { partitionId: string }): Promise<SegmentsResponse> {
    const request: TransportRequest = routeOf("segments", input.partitionId);
    return this.#call(input.partitionId, request, segmentsResponseSchema, true);
  }

  /** Asks the owner for a cleaner pass now (even if not due), clearing an uncleanable hold. */
  async requestClean(input: { partitionId: string }): Promise<void> {
    await this.#post(input.partitionId, "clean", {}, cleanResponseSchema);
  }

  /** Moves the partition's log start offset to `beforeOffset` (never backwards); refused on compact-only topics. */
  async deleteRecords(input: { partitionId: string; beforeOffset: number }): Promise<DeleteRecordsResponse> {
    const body = { beforeOffset: input.beforeOffset };
    return this.#post(input.partitionId, "deleteRecords", body, deleteRecordsResponseSchema);
  }

  /** The key's latest live value through the owner's key index (no scan); `record` null when none. */
  async lookupKey(input: { partitionId: string; key: Buffer }): Promise<KeyLookupResponse> {
    const body = { key: input.key.toString("base64") };
    return this.#post(input.partitionId, "lookupKey", body, keyLookupResponseSchema);
  }

  /** Every retained record of a key (tombstones included) with the segment it lives in. */
  async keyVersions(input: { partitionId: string; key: Buffer }): Promise<KeyVersionsResponse> {
    const body = { key: input.key.toString("base64") };
    return this.#post(input.partitionId, "keyVersions", body, keyVersionsResponseSchema);
  }

  /**
   * Writes a Kafka transaction's COMMIT/ABORT marker on the partition's current owner (the
   * worker-to-worker half of the transaction coordinator's EndTxn). Resent like the other
   * idempotent posts: a second marker of an ended transaction changes nothing.
   */
  async writeTxnMarker(input: { partitionId: string } & TxnMarkerRequest): Promise<void> {
    const { partitionId, ...marker } = input;
    await this.#post(partitionId, "txnMarker", marker, txnMarkerResponseSchema);
  }

  /** A streamed replay (every record from `offset`) or snapshot (latest live record per key). */
  streamPartition(input: PartitionStreamRequest): AsyncGenerator<StreamFrame> {
    return this.#streams.open(input);
  }

  /** The same stream undecoded: whole batch frames, then the end (what the REST binary stream forwards). */
  streamPartitionPieces(input: PartitionStreamRequest): AsyncGenerator<StreamPiece> {
    return this.#streams.openPieces(input);
  }

  /**
   * The Kafka groups one worker coordinates for a tenant, from its memory (the KafkaGroup lease
   * row names the worker). Asked once, not retried: a worker that stopped or does not answer is
   * WORKER_UNAVAILABLE, and its groups move to another worker within a lease TTL.
   */
  async describeGroups(input: { tenantId: string; workerId: string }): Promise<DescribeGroupsResponse> {
    const rows = await this.#prisma.$queryRaw<{ address: string }[]>`
      SELECT "address" FROM "Worker" WHERE "id" = ${input.workerId} AND "stoppedAt" IS NULL`;
    const address = rows[0]?.address;
    if (address === undefined) {
      throw new DataPlaneError("WORKER_UNAVAILABLE", `worker ${input.workerId} is not running`);
    }
    const request: TransportRequest = {
      method: GROUPS_ROUTE.method,
      path: dataPlanePath.groups(input.tenantId),
    };
    const outcome = await this.#transport.send(address, request);
    const worker = { workerId: input.workerId, address };
    if (outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300) {
      const answer = parseBody(describeGroupsResponseSchema, outcome.body, worker);
      // A worker id reused by another process at that address must not answer for the first.
      if (answer.workerId !== input.workerId) {
        throw new DataPlaneError(
          "WORKER_UNAVAILABLE",
          `${address} is worker ${answer.workerId} now, not ${input.workerId}`,
        );
      }
      return answer;
    }
    const error = toError(outcome, worker);
    if (outcome.kind === "failed") {
      throw new DataPlaneError("WORKER_UNAVAILABLE", error.message, { cause: error });
    }
    throw error;
  }

  /** Closes idle keep-alive sockets; the client must not be used afterwards. */
  close(): void {
    this.#transport.close();
    this.#streams.close();
  }

  /** A POST to the partition's owner that may be resent: each of these is idempotent (a clean request, a log start that never moves back, key reads, a transaction marker). */
  #post<S extends z.ZodType>(
    partitionId: string,
    route: "clean" | "deleteRecords" | "lookupKey" | "keyVersions" | "txnMarker",
    body: unknown,
    schema: S,
  ): Promise<z.infer<S>> {
    return this.#call(partitionId, { ...routeOf(route, partitionId), body }, schema, true);
  }

  async #call<S extends z.ZodType>(
    partitionId: string,
    request: TransportRequest,
    schema: S,
    idempotent: boolean,
  ): Promise<z.infer<S>> {
    const deadlineMs = Date.now() + this.#ownerWaitMs;
    let owner = await this.#owners.resolve(partitionId, deadlineMs);
    // Once an attempt may have written, every later failure says so too (an idempotent resend).
    let mayHaveWritten = false;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#transport.send(owner.address, request);
      if (outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300) {
        return parseBody(schema, outcome.body, owner);
      }
      const error = toError(outcome, owner);
      mayHaveWritten ||= error.writeMayHaveHappened;
      this.#owners.invalidate(partitionId);
      // Resent once, and only what cannot be written twice: an idempotent request, or one that
      // provably was not written (never delivered, or refused before the append).
      const mayResend = idempotent || !error.writeMayHaveHappened;
      if (attempt > 0 || !error.retriable || !mayResend) {
        throw mayHaveWritten ? writeUncertain(error) : error;
      }
      try {
        owner = await this.#nextOwner(partitionId, deadlineMs, owner, error, outcome);
      } catch (next) {
        // A failure looking for the next owner (the database, say) must not hide that the write
        // may have happened: the caller is told about the write.
        if (!mayHaveWritten) throw next;
        throw writeUncertain(next instanceof DataPlaneError ? next : error);
      }
    }
  }

  async #nextOwner(
    partitionId: string,
    deadlineMs: number,
    failed: PartitionOwner,
    error: DataPlaneError,
    outcome: TransportOutcome,
  ): Promise<PartitionOwner> {
    // An answer of PARTITION_UNAVAILABLE means the worker still holds the partition but cannot serve
    // it this instant (opening, reopening after a config change): ask the same owner again shortly.
    if (error.code === "PARTITION_UNAVAILABLE" && outcome.kind === "response") {
      await new Promise((resolve) => setTimeout(resolve, RESOLVE_RETRY_DELAY_MS));
      return this.#owners.resolve(partitionId, deadlineMs);
    }
    return this.#owners.resolve(partitionId, deadlineMs, failed);
  }
}

function withProducer(request: TransportRequest, producer: ProducerFields | undefined): TransportRequest {
  return producer ? { ...request, headers: { [PRODUCER_HEADER]: formatProducerHeader(producer) } } : request;
}

/** The worker a call went to, as the errors name it. */
type Called = Pick<PartitionOwner, "workerId" | "address">;

function parseBody<S extends z.ZodType>(schema: S, body: unknown, owner: Called): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new DataPlaneError("INTERNAL", `worker ${owner.workerId} answered with an unexpected body`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

function toError(outcome: TransportOutcome, owner: Called): DataPlaneError {
  if (outcome.kind === "failed") {
    const message = outcome.delivered
      ? `worker ${owner.workerId} at ${owner.address} failed mid-request (${outcome.error.message})`
      : `worker ${owner.workerId} at ${owner.address} is unreachable (${outcome.error.message})`;
    // Retriable for the caller either way; whether *we* resend is decided by #mayResend.
    return new DataPlaneError("PARTITION_UNAVAILABLE", message, {
      cause: outcome.error,
      writeMayHaveHappened: outcome.delivered,
    });
  }
  const parsed = errorBodySchema.safeParse(outcome.body);
  if (!parsed.success) {
    return new DataPlaneError("INTERNAL", `worker ${owner.workerId} answered HTTP ${outcome.status}`, {
      writeMayHaveHappened: true,
    });
  }
  // A coded refusal is decided before the append unless the worker says otherwise (a failure after
  // it: the partition handed over while its commit was in flight); an unexpected one may follow it.
  return new DataPlaneError(parsed.data.code, parsed.data.message, {
    retriable: parsed.data.retriable,
    writeMayHaveHappened: parsed.data.writeMayHaveHappened ?? parsed.data.code === "INTERNAL",
  });
}

/** A partition route's method and path on the partition's owner (routes.ts). */
function routeOf(route: PartitionRoute, partitionId: string): { method: "GET" | "POST"; path: string } {
  return { method: PARTITION_ROUTES[route].method, path: dataPlanePath.partition(route, partitionId) };
}
