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

export interface DataPlane {
  produce(input: {
    partitionId: string;
    records: readonly DataPlaneProduceRecord[];
  }): Promise<{ baseOffset: number; offsets: readonly number[] }>;
  fetch(input: { partitionId: string; offset: number; limit?: number; maxBytes?: number }): Promise<{
    records: readonly DataPlaneFetchedRecord[];
    nextOffset: number;
    logStartOffset: number;
    logEndOffset: number;
  }>;
  listOffsets(input: { partitionId: string }): Promise<{ earliest: number; latest: number }>;
}
