import type { DescribeGroupsResponse, SegmentsResponse } from "@lastword/dataplane";
/**
 * What the control plane needs of the data plane (the worker helper's DataPlaneClient satisfies
 * it); typed here so services can be given any implementation with the same contract.
 */
export interface DataPlaneRecordHeader {
  key: string;
  value: Buffer | null;
}

export interface DataPlaneProduceRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestamp?: number;
  headers?: readonly DataPlaneRecordHeader[];
}

export interface DataPlaneFetchedRecord {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: readonly DataPlaneRecordHeader[];
}

/** An idempotent produce's producer (records/idempotent-producer.ts; the log store's producer state). */
export interface DataPlaneProducer {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

export interface DataPlane {
  /** With `producer`, a resend of a batch already in the log answers its offsets (`duplicate`). */
  produce(input: {
    partitionId: string;
    records: readonly DataPlaneProduceRecord[];
    producer?: DataPlaneProducer;
  }): Promise<{ baseOffset: number; offsets: readonly number[]; duplicate?: boolean }>;
  /**
   * The same write from record frames (the batch frames of a binary REST body, checked by
   * @lastword/frames scanProduceFrames), forwarded without building records; `count` records.
   */
  produceFrames(input: {
    partitionId: string;
    frames: readonly Uint8Array[];
    count: number;
    producer?: DataPlaneProducer;
  }): Promise<{ baseOffset: number; offsets: readonly number[]; duplicate?: boolean }>;
  fetch(input: { partitionId: string; offset: number; limit?: number; maxBytes?: number }): Promise<{
    records: readonly DataPlaneFetchedRecord[];
    nextOffset: number;
    logStartOffset: number;
    logEndOffset: number;
  }>;
  listOffsets(input: {
    partitionId: string;
    timestamp?: number;
  }): Promise<{ earliest: number; latest: number; timestampOffset?: number | null }>;
  /** Asks the owner for a cleaner pass now (clears an uncleanable hold). */
  requestClean(input: { partitionId: string }): Promise<void>;
  /** Kafka's deleteRecords on one partition: moves its log start offset forward. */
  deleteRecords(input: { partitionId: string; beforeOffset: number }): Promise<{ logStartOffset: number }>;
  /** Latest live value of a key through the owner's key index; `record` null when none. */
  lookupKey(input: { partitionId: string; key: Buffer }): Promise<{
    record: { offset: number; timestamp: number; value: string; headers: readonly WireHeader[] } | null;
    logEndOffset: number;
    /** The key's latest retained record is a tombstone at this offset (erasure plans a tombstone there too). */
    tombstoneOffset?: number | undefined;
  }>;
  /** Every retained record of a key (values base64, null = tombstone) and its segment. */
  keyVersions(input: { partitionId: string; key: Buffer }): Promise<{
    versions: readonly {
      offset: number;
      timestamp: number;
      value: string | null;
      segmentBaseOffset: number;
    }[];
    logStartOffset: number;
    logEndOffset: number;
  }>;
  /** The partition's segments and, on compacted topics, its cleaner state (times in epoch ms). */
  segments(input: { partitionId: string }): Promise<SegmentsResponse>;
  /** The Kafka groups one worker coordinates for the tenant, from its memory (WORKER_UNAVAILABLE when it is gone). */
  describeGroups(input: { tenantId: string; workerId: string }): Promise<DescribeGroupsResponse>;
  /** Streamed replay (every record from `offset`) or snapshot (latest live record per key). */
  streamPartition(input: {
    partitionId: string;
    mode: "replay" | "snapshot";
    offset?: number;
  }): AsyncIterable<DataPlaneStreamFrame>;
  /** The same stream undecoded: whole binary batch frames (in parts), then the end; for forwarding. */
  streamPartitionPieces(input: {
    partitionId: string;
    mode: "replay" | "snapshot";
    offset?: number;
  }): AsyncIterable<DataPlaneStreamPiece>;
}

interface WireHeader {
  key: string;
  value: string | null;
}

export type DataPlaneStreamFrame =
  | { kind: "records"; records: readonly DataPlaneFetchedRecord[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

export type DataPlaneStreamPiece =
  | { kind: "batch"; parts: readonly Uint8Array[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };
