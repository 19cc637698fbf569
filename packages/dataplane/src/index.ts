export { DataPlaneClient, type DataPlaneClientOptions } from "./client";
export type { DataPlane, FetchResult, ListOffsetsResult, ProduceResult } from "./data-plane";
export { DEV_INTERNAL_SECRET } from "./dev-secret";
export {
  DATA_PLANE_ERROR_CODES,
  DataPlaneError,
  type DataPlaneErrorCode,
  HTTP_STATUS_BY_CODE,
  isDataPlaneErrorCode,
  writeUncertain,
} from "./errors";
export * from "./group-protocol";
export * from "./key-protocol";
export { type LeaseTable, OwnerDirectory, type PartitionOwner } from "./owner-directory";
export { type PartitionStreamRequest, PartitionStreams } from "./partition-stream";
export * from "./protocol";
export {
  decodeFetchedRecord,
  decodeProduceRecord,
  encodeFetchedRecord,
  encodeProduceRecord,
  type FetchedRecord,
  type ProduceRecord,
  type RecordHeader,
} from "./record-codec";
export * from "./routes";
export {
  type DecodeBatchOptions,
  decodeRecordBatch,
  decodeStreamFrames,
  type StreamFrame,
  type StreamPiece,
  splitStreamFrames,
} from "./stream-frames";
