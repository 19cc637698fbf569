export {
  decodeBatchFrame,
  encodeBatchFrames,
  encodeRecordFrames,
  forEachFrameHeader,
  readFrameRecord,
} from "./batch-frames";
export { BinaryRecordsError, decodeBinaryRecords, encodeBinaryRecords } from "./binary-records";
export {
  DATA_PLANE_STREAM_KINDS,
  encodeEndFrame,
  encodeErrorFrame,
  encodeOffsetsFrame,
  encodePartitionFrame,
  readStreamFrameHead,
  type StreamFrameHead,
  streamFrameHeadBytes,
} from "./control-frames";
export {
  BINARY_RECORDS_CONTENT_TYPE,
  BY_KEY_PARTITION,
  END_FRAME_BYTES,
  FRAME_HEADER_BYTES,
  FRAME_KIND,
  FRAMES_CONTENT_TYPE,
  FrameFormatError,
  NO_TIMESTAMP,
  OFFSETS_ENTRY_BYTES,
  RECORD_FIXED_BYTES,
  STORED_HEAD_BYTES,
  STREAM_CONTENT_TYPE,
} from "./frame-kinds";
export {
  describeFrames,
  FRAME_FORMATS,
  FRAME_LAYOUTS,
  FRAME_SHAPES,
  type FrameName,
  type FrameShape,
} from "./frame-layouts";
export { FrameReader } from "./frame-reader";
export type {
  EncodableFrameRecord,
  FrameRecord,
  FrameRecordHeader,
  ProduceFrameRecord,
  RecordSpan,
} from "./frame-records";
export { FrameSplitter, type SplitFrame, wholeFrame } from "./frame-splitter";
export {
  encodeProduceFrames,
  type ProduceFrameInput,
  type ProduceFrameLimits,
  type ProduceFrameRecords,
  type ProduceFrames,
  scanProduceFrames,
} from "./produce-frames";
export { decodeStoredFrame, encodeStoredHead, forEachStoredHeader, readStoredFrame } from "./stored-frames";
