/**
 * Every failure the codec reports. Decoders throw only this, never a RangeError from a Buffer
 * read, so the listener can answer or close the connection by `code` without guessing.
 */
export type KafkaProtocolErrorCode =
  /** A frame's size prefix is above the connection's cap (checked before buffering the body). */
  | "FRAME_TOO_LARGE"
  /** A read needs more bytes than remain: a length, count or fixed-size field runs past the end. */
  | "TRUNCATED"
  /** An unsigned varint longer than 5 bytes or above int32. */
  | "BAD_VARINT"
  /** A negative length or count other than the -1 (classic) that means null. */
  | "INVALID_LENGTH"
  /** Null where the field is not nullable at this version. */
  | "NULL_NOT_ALLOWED"
  /** Bytes left over after the message body. */
  | "TRAILING_BYTES"
  /** The API key is known but this version is not in its schema. */
  | "UNSUPPORTED_VERSION"
  /** The API key has no schema here. */
  | "UNKNOWN_API"
  /** An encoder was given a value its field type cannot hold. */
  | "INVALID_VALUE";

/** What was known of the request header when decoding failed, so the listener can still answer. */
export interface PartialRequestHeader {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
}

export class KafkaProtocolError extends Error {
  override readonly name = "KafkaProtocolError";
  readonly code: KafkaProtocolErrorCode;
  readonly header: PartialRequestHeader | undefined;

  constructor(code: KafkaProtocolErrorCode, message: string, header?: PartialRequestHeader) {
    super(message);
    this.code = code;
    this.header = header;
  }
}
