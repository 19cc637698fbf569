export { encodeProduceFrames, envelope, envelopeBytes, type ProduceRecord } from "./envelopes";
export { LastwordClient, type LastwordClientOptions } from "./lastword-client";
export { LastwordApiError } from "./problem-error";
export {
  applyRecord,
  type PartitionOffsets,
  type ReplayedState,
  readStream,
  type StreamRecord,
  stateKey,
  type TailOptions,
} from "./replay";
