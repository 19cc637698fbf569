import type { FetchedRecord } from "@lastword/dataplane";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { bytesToEnvelope } from "../records/envelope";
import { FilterDeadline, FilterSandbox } from "../records/filter-sandbox";
import { mergeByTime } from "../records/merge-by-time";
import { recordFilter } from "../records/record-filter";
import {
  assertCanDecode,
  decodeFetched,
  type RecordSchemas,
  recordDecoder,
} from "../schema-registry/record-decoder";
import { decodedFormat, type RecordDeps } from "./record.service";
import {
  FILTER_MEMORY_MB,
  FILTER_RECORD_MS,
  type SearchRecordsInput,
  type SearchRecordsOutput,
} from "./search-records.schema";
import { recheckTopicRouting, type TopicRouting, topicRouting } from "./topic.service";

/** Records one data-plane fetch of a search asks for: small enough that a round stays near its share. */
const SCAN_CHUNK = 500;
/** Most bytes one data-plane fetch asks for (the data plane's own ceiling is 64 MiB). */
const FETCH_BYTES = 16 * 1024 * 1024;

interface PartitionScan {
  partition: number;
  partitionId: string;
  offset: number;
  logStartOffset: number;
  logEndOffset: number;
  matches: FetchedRecord[];
  /** Where the scan stands after the last record it read. */
  done: boolean;
}

function chosenPartitions(routing: TopicRouting, requested: readonly number[] | undefined): number[] {
  const all = [...routing.partitionIds.keys()].sort((a, b) => a - b);
  if (requested === undefined) return all;
  const unique = [...new Set(requested)].sort((a, b) => a - b);
  const missing = unique.find((p) => !routing.partitionIds.has(p));
  if (missing !== undefined) {
    throw new AppError(
      "PARTITION_NOT_FOUND",
      `Topic "${routing.name}" has no partition ${missing} (it has ${routing.partitionCount}).`,
      { details: { partition: missing } },
    );
  }
  return unique;
}

/** Bytes a record costs a search's byteLimit: key, value and headers as stored. */
function recordBytes(record: FetchedRecord): number {
  let bytes = (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const h of record.headers) bytes += Buffer.byteLength(h.key) + (h.value?.length ?? 0);
  return bytes;
}

/** The first records of a page that fit in `bytes` (at least one, so a search always moves on). */
function withinBytes(records: FetchedRecord[], bytes: number): FetchedRecord[] {
  let used = 0;
  for (let i = 0; i < records.length; i++) {
    used += recordBytes(records[i]!);
    if (used > bytes && i > 0) return records.slice(0, i);
  }
  return records;
}

/** Where each partition's scan starts, from its live offsets. */
async function startOffsets(
  deps: RecordDeps,
  routing: TopicRouting,
  partitions: readonly number[],
  input: SearchRecordsInput,
): Promise<PartitionScan[]> {
  const { start } = input;
  const typed = new Map(start.from === "offsets" ? start.offsets.map((p) => [p.partition, p.offset]) : []);
  if (start.from === "offsets") {
    const stray = [...typed.keys()].find((p) => !partitions.includes(p));
    if (stray !== undefined) {
      throw new AppError(
        "INVALID_INPUT",
        `start.offsets names partition ${stray}, which this search does not read.`,
        {
          details: { path: "start.offsets", partition: stray },
        },
      );
    }
  }
  return Promise.all(
    partitions.map(async (partition) => {
      const partitionId = routing.partitionIds.get(partition)!;
      const listed = await deps.dataPlane.listOffsets({
        partitionId,
        ...(start.from === "timestamp" ? { timestamp: start.timestamp } : {}),
      });
      const offset =
        start.from === "earliest"
          ? listed.earliest
          : start.from === "latest"
            ? Math.max(listed.earliest, listed.latest - input.limit)
            : start.from === "timestamp"
              ? (listed.timestampOffset ?? listed.latest)
              : Math.max(listed.earliest, typed.get(partition) ?? listed.earliest);
      return {
        partition,
        partitionId,
        offset,
        logStartOffset: listed.earliest,
        logEndOffset: listed.latest,
        matches: [],
        done: offset >= listed.latest,
      };
    }),
  );
}

/**
 * A bounded search over a topic's partitions: reads them in rounds of up to SCAN_CHUNK records each
 * (in parallel), keeps what matches, and stops at the log ends, at `limit` matches or after
 * `scanLimit` records, saying which. The filtering runs here, next to the data plane, so a browser
 * gets the matches rather than the topic.
 */
export async function searchRecords(
  deps: RecordDeps,
  identity: Identity,
  input: SearchRecordsInput,
): Promise<SearchRecordsOutput> {
  const startedAt = Date.now();
  const deadline = startedAt + input.timeLimitMs;
  const matches = recordFilter(input);
  // decode=true: framed keys and values are decoded before the filters see them.
  const notes = new WeakMap<object, RecordSchemas>();
  if (input.decode) assertCanDecode(identity);
  const decode = input.decode ? recordDecoder(deps, identity.tenantId, input.topic) : null;
  const routing = await topicRouting(deps, identity.tenantId, input.topic);
  const partitions = chosenPartitions(routing, input.partitions);
  const scans = await startOffsets(deps, routing, partitions, input).catch(async (error: unknown) => {
    await recheckTopicRouting(deps.prisma, identity.tenantId, routing);
    throw error;
  });
  const programmed = input.filter?.regex || input.filter?.javascript ? input.filter : null;
  // Opened once the topic is known to be the caller's: a filter never starts for a search refused.
  const sandbox = programmed
    ? await FilterSandbox.open(programmed, {
        perRecordMs: FILTER_RECORD_MS,
        deadline,
        memoryMb: FILTER_MEMORY_MB,
      })
    : null;
  let scanned = 0;
  let bytesScanned = 0;
  let stoppedBy: SearchRecordsOutput["stoppedBy"] = "end";
  try {
    for (;;) {
      // A partition with `limit` matches of its own has all it can contribute to the merge.
      const open = scans.filter((s) => !s.done && s.matches.length < input.limit);
      if (open.length === 0) {
        if (scans.some((s) => !s.done)) stoppedBy = "limit";
        break;
      }
      const budget = input.scanLimit - scanned;
      if (budget <= 0) {
        stoppedBy = "scanLimit";
        break;
      }
      if (bytesScanned >= input.byteLimit) {
        stoppedBy = "byteLimit";
        break;
      }
      if (Date.now() >= deadline) {
        stoppedBy = "timeLimit";
        break;
      }
      const share = Math.max(1, Math.min(SCAN_CHUNK, Math.floor(budget / open.length)));
      const byteShare = Math.max(
        1,
        Math.min(FETCH_BYTES, Math.floor((input.byteLimit - bytesScanned) / open.length)),
      );
      const reads = await Promise.all(
        open.slice(0, budget).map(async (scan) => {
          const fetched = await deps.dataPlane.fetch({
            partitionId: scan.partitionId,
            offset: scan.offset,
            limit: share,
            maxBytes: byteShare,
          });
          const page = withinBytes(fetched.records.slice(0, share), byteShare);
          // A page cut short (the worker answers whole batches) continues after its last record.
          const nextOffset =
            page.length < fetched.records.length ? page[page.length - 1]!.offset + 1 : fetched.nextOffset;
          const records = decode ? await decodeFetched(decode, page, notes) : page;
          const kept = records.filter(matches);
          return { scan, fetched: { ...fetched, nextOffset }, records, kept };
        }),
      );
      // The programmable filter last, over what the text filters kept; when the deadline cuts a
      // round short, each partition's position stays at its first record the filter did not see.
      const candidates = reads.flatMap(({ scan, kept }) =>
        kept.map((record) => ({ partition: scan.partition, record, scan })),
      );
      let flags: Uint8Array | null = null;
      // Where a partition's round was cut by the deadline: its first record the filter did not see.
      const cuts = new Map<PartitionScan, number>();
      if (sandbox) {
        try {
          flags = await sandbox.test(candidates);
        } catch (error) {
          if (!(error instanceof FilterDeadline)) throw error;
          flags = error.flags;
          for (const { scan, record } of candidates.slice(error.evaluated)) {
            if (!cuts.has(scan)) cuts.set(scan, record.offset);
          }
          stoppedBy = "timeLimit";
        }
      }
      candidates.forEach(({ scan, record }, at) => {
        if (!flags || flags[at] === 1) scan.matches.push(record);
      });
      for (const { scan, fetched, records } of reads) {
        const cut = cuts.get(scan);
        const seen = cut === undefined ? records : records.filter((r) => r.offset < cut);
        scanned += seen.length;
        for (const record of seen) bytesScanned += recordBytes(record);
        scan.offset = cut ?? Math.max(scan.offset, fetched.nextOffset);
        scan.logStartOffset = fetched.logStartOffset;
        scan.logEndOffset = fetched.logEndOffset;
        scan.done = cut === undefined && (scan.offset >= fetched.logEndOffset || records.length === 0);
      }
      if (cuts.size > 0 || stoppedBy === "timeLimit") break;
    }
  } finally {
    await sandbox?.close();
  }
  const lists = scans.map((s) => ({ partition: s.partition, records: s.matches }));
  // From the latest records, the newest `limit` of them: the older ones left out are behind the
  // positions, which is where a follow-up (a live tail) goes on from.
  const fromLatest = input.start.from === "latest";
  const merged = fromLatest
    ? mergeByTime(lists, Number.POSITIVE_INFINITY).slice(-input.limit)
    : mergeByTime(lists, input.limit);
  if (!fromLatest && merged.length === input.limit) {
    const kept = new Map<number, number>();
    for (const { partition } of merged) kept.set(partition, (kept.get(partition) ?? 0) + 1);
    // Matches the merge left out are found again by the next scan: it continues after the last one kept.
    for (const scan of scans) {
      const count = kept.get(scan.partition) ?? 0;
      if (count < scan.matches.length) {
        scan.offset = count === 0 ? scan.matches[0]!.offset : scan.matches[count - 1]!.offset + 1;
        stoppedBy = "limit";
      }
    }
  }
  return {
    records: merged.map(({ partition, record }) => {
      const schemas = notes.get(record);
      return {
        partition,
        offset: record.offset,
        timestamp: record.timestamp,
        key: bytesToEnvelope(record.key, decodedFormat(schemas?.key, "auto")),
        value: bytesToEnvelope(record.value, decodedFormat(schemas?.value, "auto")),
        headers: record.headers.map((h) => ({ key: h.key, value: bytesToEnvelope(h.value, "auto") })),
        ...(schemas ? { schemas } : {}),
      };
    }),
    scanned,
    bytesScanned,
    positions: scans.map((s) => ({
      partition: s.partition,
      offset: s.offset,
      logStartOffset: s.logStartOffset,
      logEndOffset: s.logEndOffset,
    })),
    stoppedBy,
  };
}
