import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import type { ObjectStore } from "@lastword/object-store";
import { KeyFilterBuilder } from "./key-filter";

// A closed segment's bytes to and from object storage without holding the segment in memory:
// Kafka's default segment.bytes is 1 GiB, and several partitions may roll at once.

/** What an upload learnt of the bytes it sent. */
export interface UploadedSegment {
  sha256: string;
  /** The segment's key filter (key-filter.ts), when one was asked for. */
  keyFilter: Buffer | null;
}

/**
 * Streams the first `size` bytes of the open segment file `file` into `key`, read once (through
 * the handle the caller checked the size on, so a file renamed over the path meanwhile changes
 * nothing): the SHA-256 and the key filter are computed from exactly the bytes uploaded, in one pass.
 */
export async function uploadSegmentFile(
  store: ObjectStore,
  key: string,
  file: FileHandle,
  size: number,
  options: { keyFilter: boolean },
): Promise<UploadedSegment> {
  const hash = createHash("sha256");
  const keys = options.keyFilter ? new KeyFilterBuilder() : null;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      try {
        keys?.push(chunk);
      } catch (error) {
        done(error as Error);
        return;
      }
      done(null, chunk);
    },
  });
  const source =
    size === 0 ? Readable.from([]) : file.createReadStream({ start: 0, end: size - 1, autoClose: false });
  source.once("error", (error: Error) => tap.destroy(error));
  await store.putStream(key, source.pipe(tap), size);
  return { sha256: hash.digest("hex"), keyFilter: keys?.finish() ?? null };
}

/** A segment row's object, as the log store's remote tier reads it. */
export interface StoredSegment {
  objectKey: string;
  sha256: string;
  byteSize: number;
}

/**
 * The object's bytes as chunks read as they are consumed, checked against the row: the stream
 * fails at its end (before the log store installs anything) when the length or SHA-256 differ.
 */
export async function* fetchSegmentObject(
  store: ObjectStore,
  row: StoredSegment,
): AsyncGenerator<Uint8Array> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of await store.getStream(row.objectKey)) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > row.byteSize) break;
    hash.update(bytes);
    yield bytes;
  }
  if (size !== row.byteSize || hash.digest("hex") !== row.sha256) {
    throw new Error(`object ${row.objectKey} does not hold the bytes its manifest row names`);
  }
}
