import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { decodeBatch, readBatchHeader } from "@lastword/record-batch";
import type { HostedLog } from "../hosting/hosted-log";
import { stampLeaderEpochs } from "./batch-epochs";
import { POOLED_FROM_BYTES } from "./fetch-buffers";
import { allowed } from "./kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import { kafkaErrorOf, notHostedError } from "./kafka-errors";
import { readableTopic, readLatest } from "./latest-view";
import { leaderEpochError } from "./leader-epoch-check";

type FetchRequest = RequestBody<1>;
type FetchResponse = ResponseInput<1>;
type PartitionAnswer = NonNullable<NonNullable<FetchResponse["responses"]>[number]["partitions"]>[number];

interface Want {
  topic: string;
  index: number;
  partitionId: string | null;
  fetchOffset: number;
  maxBytes: number;
  currentLeaderEpoch: number;
  /** Read through the topic's `.latest` view. */
  view: boolean;
  /** isolation_level READ_COMMITTED: read up to the last stable offset, aborted transactions named. */
  committed: boolean;
}

/** Kafka's isolation_level (Fetch v4+): 1 is READ_COMMITTED. */
const READ_COMMITTED = 1;

/** Records in whole stored batches, from their headers (the first may start below the fetch offset). */
function recordsIn(bytes: Buffer): number {
  let count = 0;
  for (let pos = 0; pos < bytes.length; ) {
    const header = readBatchHeader(bytes, pos);
    count += header.recordCount;
    pos += header.sizeBytes;
  }
  return count;
}

/** One past the last offset of the batches in `bytes` (`from` when there are none). */
function nextOffsetAfter(bytes: Buffer, from: number): number {
  let next = from;
  for (let pos = 0; pos < bytes.length; ) {
    const header = readBatchHeader(bytes, pos);
    next = header.lastOffset + 1;
    pos += header.sizeBytes;
  }
  return next;
}

/** True when a batch in `bytes` holds a record at or above `offset` (not just its offset range). */
function holdsRecordFrom(bytes: Buffer, offset: number): boolean {
  for (let pos = 0; pos < bytes.length; ) {
    const header = readBatchHeader(bytes, pos);
    if (header.lastOffset >= offset && header.recordCount > 0) {
      if (header.baseOffset >= offset) return true;
      if (decodeBatch(bytes, pos).records.some((r) => r.offset >= offset)) return true;
    }
    pos += header.sizeBytes;
  }
  return false;
}

/**
 * Whole stored batches from `from` within `maxBytes` (the first always whole, KIP-74), as read from
 * disk. A compacted log can hold batches whose records below the fetch offset are all that is left
 * in range; a client that drops records below its offset would then advance one offset per round
 * trip, so batches are added until one holds a record at or above the offset, or the log ends.
 */
async function readFrom(
  log: HostedLog,
  from: number,
  maxBytes: number,
  committed = false,
  lend?: Lender,
): Promise<Buffer> {
  // A large read goes into a lent buffer (up to its size; the client fetches the rest next time).
  const into = lend && maxBytes >= POOLED_FROM_BYTES ? lend(maxBytes) : undefined;
  const chunks: Buffer[] = [];
  let filled = 0;
  let next = from;
  let budget = into ? Math.min(maxBytes, into.length) : maxBytes;
  // read_committed ends at the last stable offset: an open transaction's batches wait for its marker.
  const end = committed ? log.lastStableOffset : log.highWatermark;
  const isolation = committed ? "read_committed" : "read_uncommitted";
  while (next < end && (!into || filled < into.length)) {
    const room = into?.subarray(filled);
    const { bytes, nextOffset } = await log.readBatches(next, {
      maxBytes: Math.max(budget, 1),
      isolation,
      ...(room && { into: room }),
    });
    if (bytes.length === 0 || nextOffset <= next) break;
    chunks.push(bytes);
    if (room && bytes.buffer === room.buffer && bytes.byteOffset === room.byteOffset) filled += bytes.length;
    budget -= bytes.length;
    next = nextOffset;
    if (holdsRecordFrom(bytes, from)) break;
  }
  if (chunks.length === 1) return chunks[0] as Buffer;
  // Every chunk read back to back into the lent buffer: its front is the answer, uncopied.
  if (into && filled === chunks.reduce((n, chunk) => n + chunk.length, 0)) return into.subarray(0, filled);
  return Buffer.concat(chunks);
}

/** A buffer of at least `bytes` for this answer, free again once the answer is written. */
type Lender = (bytes: number) => Buffer;

/**
 * A partition's answer. Records are never null, errors included: Kafka sends an empty record set
 * with an error (FetchResponse.partitionResponse), and librdkafka 2.0.x reads a null one as an
 * invalid MessageSetSize -1, drops the whole response unread and refetches without ever seeing the
 * error (so it never resets an out-of-range offset nor looks for a new leader).
 */
function answer(index: number, errorCode: number, extra: Partial<PartitionAnswer> = {}): PartitionAnswer {
  return {
    partitionIndex: index,
    errorCode,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
    abortedTransactions: [],
    preferredReadReplica: -1,
    records: Buffer.alloc(0),
    ...extra,
  };
}

/** The view's records from the fetch offset: each key's latest below the pinned end, the real log from it. */
async function readView(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  want: Want,
  log: HostedLog,
  limit: number,
): Promise<Buffer> {
  const partitionId = want.partitionId as string;
  const freeze = await ctx.latestViews.pinned(session.latestPins, partitionId, log, want.fetchOffset);
  if (want.fetchOffset >= freeze.end) return readFrom(log, want.fetchOffset, limit, want.committed);
  return readLatest(log, freeze, want.fetchOffset, limit, ctx.clock.now(), (end) =>
    end < log.highWatermark ? readFrom(log, end, limit, want.committed) : Promise.resolve(Buffer.alloc(0)),
  );
}

async function fetchPartition(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  want: Want,
  budget: { left: number; any: boolean },
  lend: Lender,
) {
  const { partitionId } = want;
  const slot = partitionId === null ? undefined : ctx.host.slot(partitionId);
  if (partitionId === null) return answer(want.index, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  if (!slot) return answer(want.index, notHostedError(ctx.host, partitionId));
  const fenced = leaderEpochError(slot.epoch, want.currentLeaderEpoch);
  if (fenced !== null) return answer(want.index, fenced);
  try {
    return await ctx.host.read(partitionId, async (log) => {
      // The LSO is answered in both isolation levels, as Kafka does (consumers report their lag by it).
      const marks = {
        highWatermark: BigInt(log.highWatermark),
        lastStableOffset: BigInt(log.lastStableOffset),
        logStartOffset: BigInt(log.logStartOffset),
      };
      if (want.fetchOffset < log.logStartOffset || want.fetchOffset > log.logEndOffset) {
        return answer(want.index, ErrorCode.OFFSET_OUT_OF_RANGE, marks);
      }
      // The first batch of the whole response is served whatever its size; after it, the budget rules.
      const limit = Math.min(want.maxBytes, budget.any ? budget.left : Number.MAX_SAFE_INTEGER);
      // Between the high watermark and the log end (an append still being made durable): nothing
      // to read yet, as a Kafka leader answers a fetch there.
      const readable = want.committed ? log.lastStableOffset : log.highWatermark;
      if (want.fetchOffset >= readable || limit <= 0)
        return answer(want.index, 0, { ...marks, records: Buffer.alloc(0) });
      const records = want.view
        ? await readView(ctx, session, want, log, limit)
        : await readFrom(log, want.fetchOffset, limit, want.committed, lend);
      // The aborted transactions whose batches this answer may carry: the consumer drops their
      // records (and the markers) itself, as from a Kafka broker.
      const abortedTransactions = want.committed
        ? log
            .abortedTransactions(want.fetchOffset, nextOffsetAfter(records, want.fetchOffset))
            .map((txn) => ({ producerId: BigInt(txn.producerId), firstOffset: BigInt(txn.firstOffset) }))
        : [];
      stampLeaderEpochs(records, slot.leaderEpochs);
      budget.left -= records.length;
      if (records.length > 0) budget.any = true;
      ctx.fetched.add(partitionId, recordsIn(records));
      return answer(want.index, 0, { ...marks, records, abortedTransactions });
    });
  } catch (error) {
    return answer(want.index, kafkaErrorOf(error).errorCode);
  }
}

async function resolve(ctx: KafkaBrokerContext, session: KafkaSession, request: FetchRequest) {
  const wants: (Want | { topic: string; index: number; errorCode: number })[] = [];
  for (const t of request.topics) {
    const mayRead = allowed(session, "Fetch", { name: t.topic });
    const found = mayRead ? await readableTopic(ctx.catalog, session.principal.tenantId, t.topic) : null;
    for (const p of t.partitions) {
      const partition = found?.topic.partitions.find((x) => x.index === p.partition);
      if (!mayRead)
        wants.push({ topic: t.topic, index: p.partition, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
      else if (!found || !partition)
        wants.push({ topic: t.topic, index: p.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
      else {
        wants.push({
          topic: t.topic,
          index: p.partition,
          partitionId: partition.id,
          fetchOffset: Number(p.fetchOffset),
          maxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch ?? -1,
          view: found.view,
          committed: request.isolationLevel === READ_COMMITTED,
        });
      }
    }
  }
  return wants;
}

/**
 * Fetch v4+: stored batches as read from disk (no decode, no re-encode), markers and aborted data
 * included as Kafka serves them; READ_COMMITTED reads up to the last stable offset and names the
 * aborted transactions the batches may hold (the consumer drops them); long poll until `minBytes` arrived or `maxWaitMs`
 * passed, woken by appends to the partitions asked for. A `<topic>.latest` view answers with the
 * topic's offsets and marks, its records filtered below the connection's pinned end.
 */
export async function handleFetch(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: FetchRequest,
): Promise<FetchResponse> {
  const wants = await resolve(ctx, session, request);
  const deadline = Date.now() + Math.max(0, request.maxWaitMs);
  // The buffers this answer's reads were lent: given back once it is written, and at once for a
  // round of a long poll whose reads are dropped.
  const lent: Buffer[] = [];
  const giveBack = () => {
    for (const buffer of lent.splice(0)) ctx.fetchBuffers.giveBack(buffer);
  };
  session.afterAnswer(giveBack);
  const lend: Lender = (bytes) => {
    const buffer = ctx.fetchBuffers.take(bytes);
    lent.push(buffer);
    return buffer;
  };
  for (;;) {
    const budget = { left: request.maxBytes, any: false };
    const answers: { topic: string; answer: PartitionAnswer }[] = [];
    for (const want of wants) {
      const a =
        "errorCode" in want
          ? answer(want.index, want.errorCode)
          : await fetchPartition(ctx, session, want, budget, lend);
      answers.push({ topic: want.topic, answer: a });
    }
    const bytes = request.maxBytes - budget.left;
    const waitMs = deadline - Date.now();
    const failed = answers.some((a) => a.answer.errorCode !== 0);
    if (bytes >= request.minBytes || waitMs <= 0 || failed || session.closed.aborted) {
      // The fetch quota counts the record bytes the answer carries, as stored (Kafka sends stored
      // batches as they are, compressed or not; the client inflates them on its own CPU).
      session.charge("fetchBytesPerSecond", bytes);
      return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: grouped(answers) };
    }
    giveBack();
    const ids = wants.flatMap((w) => ("partitionId" in w && w.partitionId ? [w.partitionId] : []));
    await ctx.appends.wait(ids, waitMs, session.closed);
  }
}

function grouped(answers: { topic: string; answer: PartitionAnswer }[]) {
  const byTopic = new Map<string, PartitionAnswer[]>();
  for (const { topic, answer: a } of answers) {
    const list = byTopic.get(topic) ?? [];
    list.push(a);
    byTopic.set(topic, list);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}
