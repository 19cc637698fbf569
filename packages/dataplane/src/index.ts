export {
  DataPlaneClient,
  type DataPlaneClientOptions,
  type FetchResult,
  type ListOffsetsResult,
  type ProduceResult,
} from "./client";
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
export {
  type DecodeBatchOptions,
  decodeRecordBatch,
  decodeStreamFrames,
  type StreamFrame,
  type StreamPiece,
  splitStreamFrames,
} from "./stream-frames";
