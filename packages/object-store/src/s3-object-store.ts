import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import {
  assertObjectKey,
  assertRange,
  type ByteRange,
  type KeptVersions,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
  type PutOptions,
  STREAM_PART_BYTES,
  STREAM_PARTS_IN_FLIGHT,
} from "./object-store";
import { exactly } from "./sized-stream";

export interface S3StoreConfig {
  bucket: string;
  /** Key prefix inside the bucket (no leading or trailing `/`); empty for the whole bucket. */
  prefix?: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, a test server); AWS's own when absent. */
  endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which MinIO and test servers need. */
  forcePathStyle?: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** What the bucket does with replaced and deleted objects (erasure must know: old versions keep old values). */
export type BucketVersioning = "disabled" | "enabled" | "suspended";

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

function translate(error: unknown, key: string): never {
  if (error instanceof ObjectStoreError) throw error;
  const status = statusOf(error);
  if (status === 404) throw new ObjectStoreError("NOT_FOUND", `no object ${key}`, { cause: error });
  if (status === 412 || status === 409) {
    throw new ObjectStoreError(
      "PRECONDITION_FAILED",
      `conditional write of ${key} refused (HTTP ${status})`,
      {
        cause: error,
      },
    );
  }
  if (status === undefined || status >= 500 || status === 429) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ObjectStoreError("UNAVAILABLE", `object storage unavailable for ${key}: ${why}`, {
      cause: error,
    });
  }
  throw error;
}

/**
 * Objects in an S3 bucket through `@aws-sdk/client-s3` (AWS S3, MinIO, S3-compatible servers).
 * `S3ObjectStore.open` checks the bucket and probes whether the server enforces conditional writes,
 * so nothing ever relies on a condition a server silently ignores.
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = "s3";

  private constructor(
    private readonly client: S3Client,
    private readonly config: S3StoreConfig,
    readonly conditionalWrites: boolean,
  ) {}

  static async open(config: S3StoreConfig): Promise<S3ObjectStore> {
    const client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle ?? false,
      credentials: config.credentials,
      // Checksums only where S3 requires them: some S3-compatible servers store aws-chunked
      // trailers inside the object body otherwise.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    try {
      await client.send(new HeadBucketCommand({ Bucket: config.bucket }));
    } catch (error) {
      client.destroy();
      throw new ObjectStoreError(
        "UNAVAILABLE",
        `bucket ${config.bucket} is not reachable at ${config.endpoint ?? "AWS S3"} (HTTP ${statusOf(error) ?? "no answer"})`,
        { cause: error },
      );
    }
    const probe = new S3ObjectStore(client, config, false);
    const conditional = await probe.#probeConditionalWrites();
    return new S3ObjectStore(client, config, conditional);
  }

  // Writes a probe object twice, the second time with If-None-Match: a server that enforces it
  // answers 412; one that ignores it overwrites.
  async #probeConditionalWrites(): Promise<boolean> {
    const key = `.lastword-probe/${randomBytes(8).toString("hex")}`;
    await this.put(key, Buffer.from("probe"));
    try {
      await this.put(key, Buffer.from("probe"), { ifNoneMatch: "*" });
      return false;
    } catch (error) {
      if (error instanceof ObjectStoreError && error.code === "PRECONDITION_FAILED") return true;
      throw error;
    } finally {
      await this.delete(key);
    }
  }

  #key(key: string): string {
    assertObjectKey(key);
    return this.config.prefix ? `${this.config.prefix}/${key}` : key;
  }

  #unprefixed(key: string): string {
    return this.config.prefix ? key.slice(this.config.prefix.length + 1) : key;
  }

  async put(key: string, body: Uint8Array, options: PutOptions = {}): Promise<ObjectInfo> {
    try {
      const out = await this.client.send(
        new PutObjectCommand({
          Bucket: this.config.bucket,
          Key: this.#key(key),
          Body: body,
          ContentLength: body.byteLength,
          IfNoneMatch: options.ifNoneMatch,
          IfMatch: options.ifMatch,
        }),
      );
      return { key, size: body.byteLength, etag: out.ETag ?? "" };
    } catch (error) {
      return translate(error, key);
    }
  }

  /**
   * Through lib-storage's `Upload`: one PutObject when the body fits in a part, otherwise a
   * multipart upload whose CompleteMultipartUpload carries the same `If-None-Match`/`If-Match` (the
   * object appears, or not, at completion, so that is where S3 checks them; parts are invisible
   * until then, and a failed upload is aborted so its parts do not linger).
   */
  async putStream(key: string, body: Readable, size: number, options: PutOptions = {}): Promise<ObjectInfo> {
    try {
      // A read error of the body fails the upload (which aborts it) instead of leaving it waiting.
      const sized = exactly(size, key);
      body.once("error", (error) => sized.destroy(error));
      const upload = new Upload({
        client: this.client,
        partSize: STREAM_PART_BYTES,
        queueSize: STREAM_PARTS_IN_FLIGHT,
        params: {
          Bucket: this.config.bucket,
          Key: this.#key(key),
          Body: body.pipe(sized),
          ContentLength: size,
          IfNoneMatch: options.ifNoneMatch,
          IfMatch: options.ifMatch,
        },
      });
      const out = await upload.done();
      return { key, size, etag: out.ETag ?? "" };
    } catch (error) {
      return translate(error, key);
    }
  }

  async get(key: string, range?: ByteRange): Promise<Buffer> {
    const body = await this.getStream(key, range);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    assertRange(range);
    const header = range
      ? `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`
      : undefined;
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: this.#key(key), Range: header }),
      );
      // In Node the SDK's body is the HTTP response, a Readable.
      return out.Body instanceof Readable ? out.Body : Readable.from([]);
    } catch (error) {
      // A range starting at or past the end: the object exists, the range holds nothing.
      if (statusOf(error) === 416) return Readable.from([]);
      return translate(error, key);
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    try {
      const out = await this.client.send(
        new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.#key(key) }),
      );
      return { key, size: out.ContentLength ?? 0, etag: out.ETag ?? "" };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      return translate(error, key);
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    let token: string | undefined;
    do {
      const out = await this.client
        .send(
          new ListObjectsV2Command({
            Bucket: this.config.bucket,
            Prefix: this.config.prefix ? `${this.config.prefix}/${prefix}` : prefix,
            ContinuationToken: token,
          }),
        )
        .catch((error) => translate(error, prefix));
      for (const item of out.Contents ?? []) {
        if (!item.Key) continue;
        const key = this.#unprefixed(item.Key);
        if (key.startsWith(".lastword-probe/")) continue;
        yield { key, size: item.Size ?? 0, etag: item.ETag ?? "" };
      }
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.#key(key) }));
    } catch (error) {
      if (statusOf(error) === 404) return;
      translate(error, key);
    }
  }

  /** The bucket's versioning state: with versions kept, a deleted object's old bytes still exist. */
  async versioning(): Promise<BucketVersioning> {
    const out = await this.client
      .send(new GetBucketVersioningCommand({ Bucket: this.config.bucket }))
      .catch((error) => translate(error, this.config.bucket));
    if (out.Status === "Enabled") return "enabled";
    return out.Status === "Suspended" ? "suspended" : "disabled";
  }

  /** Versioning and the lifecycle rules that expire noncurrent versions under our prefix. */
  async keptVersions(): Promise<KeptVersions> {
    const versioning = await this.versioning();
    const rules = await this.client
      .send(new GetBucketLifecycleConfigurationCommand({ Bucket: this.config.bucket }))
      .then((out) => out.Rules ?? [])
      .catch((error: unknown) => {
        // No lifecycle configuration at all is an answer, not a failure.
        if (error instanceof S3ServiceException && error.name === "NoSuchLifecycleConfiguration") return [];
        return translate(error, this.config.bucket);
      });
    return { versioning, noncurrentExpiryDays: noncurrentExpiryDays(rules, this.config.prefix ?? "") };
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/** The part of an S3 lifecycle rule that decides how long noncurrent versions of our keys stay. */
export interface LifecycleRuleView {
  Status?: string;
  Prefix?: string;
  Filter?: { Prefix?: string; Tag?: unknown; And?: { Prefix?: string; Tags?: unknown } };
  NoncurrentVersionExpiration?: { NoncurrentDays?: number };
}

/**
 * The fewest days after which an enabled rule expires noncurrent versions of every key under
 * `prefix` (a rule's prefix must be a prefix of ours; tag-filtered rules do not cover all keys), or
 * null when no rule does.
 */
export function noncurrentExpiryDays(rules: readonly LifecycleRuleView[], prefix: string): number | null {
  let days: number | null = null;
  for (const rule of rules) {
    const expiry = rule.NoncurrentVersionExpiration?.NoncurrentDays;
    if (rule.Status !== "Enabled" || expiry === undefined) continue;
    const filter = rule.Filter;
    const tagged = filter?.Tag !== undefined || filter?.And?.Tags !== undefined;
    const rulePrefix = filter?.Prefix ?? filter?.And?.Prefix ?? rule.Prefix ?? "";
    if (tagged || !prefix.startsWith(rulePrefix)) continue;
    days = days === null ? expiry : Math.min(days, expiry);
  }
  return days;
}
