export { AlterConfigOp, ConfigResourceType } from "./config-ids";
export {
  type ConsumerAssignment,
  type ConsumerSubscription,
  decodeConsumerAssignment,
  decodeConsumerSubscription,
} from "./consumer-protocol";
export {
  type DecodedRequest,
  type DecodedResponse,
  type DecodeRequestOptions,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  encodeResponseParts,
  REFERENCED_RECORDS_BYTES,
} from "./envelope";
export { ErrorCode, type ErrorName, errorName } from "./error-codes";
export { KafkaProtocolError, type KafkaProtocolErrorCode, type PartialRequestHeader } from "./errors";
export { FrameReader, MAX_FRAME_BYTES, PRE_AUTH_MAX_FRAME_BYTES } from "./frame-reader";
export { type RequestHeader, requestHeaderVersion, responseHeaderVersion } from "./headers";
export {
  ApiKey,
  apiKeyName,
  apiSchemas,
  isFlexible,
  isKnownApiKey,
  isVersionSupported,
  type RequestBody,
  type RequestInput,
  type ResponseBody,
  type ResponseInput,
  supportedVersions,
} from "./registry";
export type { ApiSchema, FieldSchema, MessageBody, MessageInput, PrimitiveType } from "./schema-types";
