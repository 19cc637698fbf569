import type { DescribeGroupsResponse } from "./group-protocol";
import type { KeyLookupResponse, KeyVersionsResponse } from "./key-protocol";
import type { PartitionStreamRequest } from "./partition-stream";
import type { DeleteRecordsResponse, ProducerFields, SegmentsResponse } from "./protocol";
import type { FetchedRecord, ProduceRecord } from "./record-codec";
import type { StreamFrame, StreamPiece } from "./stream-frames";

/**
 * What the control plane needs of the data plane, one method per route of the route table
 * (routes.ts). `DataPlaneClient` is the implementation; the API's services take this interface.
 */
export interface DataPlane {
  /** With `producer`, a resend of a batch already in the log answers its offsets (`duplicate`). */
  produce(input: {
    partitionId: string;
    records: readonly ProduceRecord[];
    producer?: ProducerFields;
  }): Promise<ProduceResult>;
  /**
   * The same write from record frames (the batch frames of a binary REST body, checked by
   * @lastword/frames scanProduceFrames), forwarded without building records; `count` records.
   */
  produceFrames(input: {
    partitionId: string;
    frames: readonly Uint8Array[];
    count: number;
    producer?: ProducerFields;
  }): Promise<ProduceResult>;
  fetch(input: {
    partitionId: string;
    offset: number;
    limit?: number;
    maxBytes?: number;
  }): Promise<FetchResult>;
  listOffsets(input: { partitionId: string; timestamp?: number }): Promise<ListOffsetsResult>;
  /** Asks the owner for a cleaner pass now (clears an uncleanable hold). */
  requestClean(input: { partitionId: string }): Promise<void>;
  /** Kafka's deleteRecords on one partition: moves its log start offset forward. */
  deleteRecords(input: { partitionId: string; beforeOffset: number }): Promise<DeleteRecordsResponse>;
  /** Latest live value of a key through the owner's key index; `record` null when none. */
  lookupKey(input: { partitionId: string; key: Buffer }): Promise<KeyLookupResponse>;
  /** Every retained record of a key (values base64, null = tombstone) and its segment. */
  keyVersions(input: { partitionId: string; key: Buffer }): Promise<KeyVersionsResponse>;
  /** The partition's segments and, on compacted topics, its cleaner state (times in epoch ms). */
  segments(input: { partitionId: string }): Promise<SegmentsResponse>;
  /** The Kafka groups one worker coordinates for the tenant, from its memory (WORKER_UNAVAILABLE when it is gone). */
  describeGroups(input: { tenantId: string; workerId: string }): Promise<DescribeGroupsResponse>;
  /** Streamed replay (every record from `offset`) or snapshot (latest live record per key). */
  streamPartition(input: PartitionStreamRequest): AsyncIterable<StreamFrame>;
  /** The same stream undecoded: whole binary batch frames (in parts), then the end; for forwarding. */
  streamPartitionPieces(input: PartitionStreamRequest): AsyncIterable<StreamPiece>;
}

export interface ProduceResult {
  baseOffset: number;
  offsets: number[];
  /** Present when the worker found this batch already in the log (an idempotent resend): its first offsets. */
  duplicate?: true;
}

export interface FetchResult {
  records: FetchedRecord[];
  nextOffset: number;
  logStartOffset: number;
  logEndOffset: number;
}

export interface ListOffsetsResult {
  earliest: number;
  latest: number;
  timestampOffset?: number | null;
}
