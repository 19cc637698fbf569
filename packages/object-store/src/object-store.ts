import type { Readable } from "node:stream";

/** One object as a listing or a head request describes it. */
export interface ObjectInfo {
  key: string;
  size: number;
  /** Changes whenever the object's bytes are replaced; what `ifMatch` compares. */
  etag: string;
}

export interface PutOptions {
  /** Write only if no object has this key (S3 `If-None-Match: *`). */
  ifNoneMatch?: "*";
  /** Write only if the object's current etag is this one (S3 `If-Match`). */
  ifMatch?: string;
}

/** A byte range: `length` bytes from `offset` (to the end when `length` is absent). */
export interface ByteRange {
  offset: number;
  length?: number;
}

/**
 * Where partitions' segment and commit objects live: the filesystem (the embedded default) or an
 * S3 bucket. Keys are `/`-separated paths of printable characters (see `assertObjectKey`).
 */
export interface ObjectStore {
  /** `fs` or `s3`, for logs and the console. */
  readonly kind: "fs" | "s3";
  /**
   * Whether `ifNoneMatch`/`ifMatch` are enforced by the backend. Fencing never depends on them (the
   * manifest commit in Postgres under the lease epoch decides what is acknowledged); they only save
   * a wasted object where a backend offers them.
   */
  readonly conditionalWrites: boolean;
  put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectInfo>;
  /**
   * Writes exactly `size` bytes read from `body` with the conditions of `put`, holding only a few
   * parts of them in memory however large the object (a segment can be 1 GiB): S3 uploads parts of
   * `STREAM_PART_BYTES`, at most `STREAM_PARTS_IN_FLIGHT` at once, the filesystem copies through a
   * temp file. A body that ends short of `size` or runs past it writes nothing.
   */
  putStream(key: string, body: Readable, size: number, options?: PutOptions): Promise<ObjectInfo>;
  /** The object's bytes, or the range of them; `NOT_FOUND` when it does not exist. */
  get(key: string, range?: ByteRange): Promise<Buffer>;
  /** `get` as a stream, read as it is consumed; `NOT_FOUND` before any byte when the object does not exist. */
  getStream(key: string, range?: ByteRange): Promise<Readable>;
  /** `null` when the object does not exist. */
  head(key: string): Promise<ObjectInfo | null>;
  /** Every object whose key starts with `prefix`, in key order (UTF-8 byte order, as S3 lists). */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  /** Removes the object; removing one that does not exist is not an error (as S3). */
  delete(key: string): Promise<void>;
  /**
   * Whether a deleted or replaced object's bytes live on as an old version, and for how long: an
   * erasure cannot promise a deadline on a store that keeps them without an expiry inside it.
   */
  keptVersions(): Promise<KeptVersions>;
  close(): Promise<void>;
}

/** What a store keeps of deleted and replaced objects. */
export interface KeptVersions {
  /** `enabled` or `suspended` (old versions made while enabled remain): old bytes outlive a delete. */
  versioning: "disabled" | "enabled" | "suspended";
  /** An enabled lifecycle rule covering our keys expires noncurrent versions after this many days; null: none. */
  noncurrentExpiryDays: number | null;
}

/** Bytes per part of a streamed S3 upload (S3's minimum part is 5 MiB; 10,000 parts make 80 GiB). */
export const STREAM_PART_BYTES = 8 << 20;
/** Parts of one streamed upload in memory and in flight at once. */
export const STREAM_PARTS_IN_FLIGHT = 2;

/** Longest key accepted: S3's limit. */
export const OBJECT_KEY_MAX_BYTES = 1024;
const KEY_SEGMENT = /^[A-Za-z0-9._=-]+$/;

/**
 * Keys are written by Lastword only (partition, epoch, unique id), so they are held to a portable
 * subset: path segments of letters, digits and `._=-`, no empty, `.` or `..` segment. The same key
 * then names the same object on a filesystem and in a bucket.
 */
export function assertObjectKey(key: string): void {
  const segments = key.split("/");
  const valid =
    Buffer.byteLength(key) <= OBJECT_KEY_MAX_BYTES &&
    segments.every((s) => KEY_SEGMENT.test(s) && s !== "." && s !== "..");
  if (!valid) throw new ObjectStoreError("INVALID_KEY", `invalid object key ${JSON.stringify(key)}`);
}

export function assertRange(range: ByteRange | undefined): void {
  if (!range) return;
  const ok =
    Number.isSafeInteger(range.offset) &&
    range.offset >= 0 &&
    (range.length === undefined || (Number.isSafeInteger(range.length) && range.length > 0));
  if (!ok) throw new ObjectStoreError("INVALID_RANGE", `invalid byte range ${JSON.stringify(range)}`);
}

export type ObjectStoreErrorCode =
  | "NOT_FOUND"
  | "PRECONDITION_FAILED"
  | "INVALID_KEY"
  | "INVALID_RANGE"
  | "UNAVAILABLE";

export class ObjectStoreError extends Error {
  override readonly name = "ObjectStoreError";
  constructor(
    readonly code: ObjectStoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
