import {
  decodeProduceRecord,
  encodeFetchedRecord,
  type FetchQuery,
  type FetchResponse,
  type ListOffsetsResponse,
  type ProduceRequest,
  type ProduceResponse,
  type SegmentsResponse,
} from "@lastword/dataplane";
import type { HostedLog } from "./hosted-log";
import type { PartitionHost } from "./partition-host";
import { offsetForTimestamp } from "./timestamp-lookup";

/** One batch → one append (one fsync in the log store) → consecutive offsets, one per record. */
export function produce(
  host: PartitionHost,
  partitionId: string,
  body: ProduceRequest,
): Promise<ProduceResponse> {
  const records = body.records.map(decodeProduceRecord);
  return host.write(partitionId, async (log) => {
    const { baseOffset, lastOffset } = await log.append(records);
    const offsets = Array.from({ length: records.length }, (_, i) => baseOffset + i);
    if (offsets[offsets.length - 1] !== lastOffset) {
      throw new Error(`append of ${records.length} records returned offsets ${baseOffset}..${lastOffset}`);
    }
    return { baseOffset, offsets };
  });
}

export function fetchRecords(
  host: PartitionHost,
  partitionId: string,
  query: FetchQuery,
): Promise<FetchResponse> {
  return host.read(partitionId, async (log) => {
    const records = await log.read(query.offset, { maxRecords: query.limit, maxBytes: query.maxBytes });
    const last = records[records.length - 1];
    return {
      records: records.map(encodeFetchedRecord),
      nextOffset: last ? last.offset + 1 : Math.max(query.offset, log.logStartOffset),
      logStartOffset: log.logStartOffset,
      logEndOffset: log.logEndOffset,
    };
  });
}

export function listOffsets(
  host: PartitionHost,
  partitionId: string,
  query: { timestamp?: number | undefined },
): Promise<ListOffsetsResponse> {
  return host.read(partitionId, async (log: HostedLog) => {
    const answer: ListOffsetsResponse = { earliest: log.logStartOffset, latest: log.logEndOffset };
    if (query.timestamp !== undefined)
      answer.timestampOffset = await offsetForTimestamp(log, query.timestamp);
    return answer;
  });
}

export function listSegments(host: PartitionHost, partitionId: string): Promise<SegmentsResponse> {
  return host.read(partitionId, async (log) => ({
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    segments: (await log.segments()).map((segment) => ({ ...segment })),
  }));
}
