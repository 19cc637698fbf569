export { envelope, envelopeBytes } from "./envelopes";
export { LastwordClient, type LastwordClientOptions } from "./lastword-client";
export { LastwordApiError } from "./problem-error";
export { encodeProduceFrames, type ProduceRecord } from "./produce-frames";
export {
  applyRecord,
  type PartitionOffsets,
  type ReplayedState,
  readStream,
  type StreamRecord,
  stateKey,
  type TailOptions,
} from "./replay";
