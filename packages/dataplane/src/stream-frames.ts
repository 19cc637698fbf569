import {
  decodeBatchFrame,
  decodeStoredFrame,
  FRAME_KIND,
  FrameFormatError,
  readStreamFrameHead,
  streamFrameHeadBytes,
} from "@lastword/frames";
import { DataPlaneError, isDataPlaneErrorCode } from "./errors";
import type { FetchedRecord } from "./record-codec";

/**
 * The data plane's partition stream (replay, snapshot, fetch) over HTTP, worker → web: its
 * frames (batch, stored, end, error) are @lastword/frames' (format in its frame-kinds.ts); this
 * is the reading side's transport: cutting the body's chunks at frame boundaries and turning
 * failures into DataPlaneErrors.
 */
export type StreamFrame =
  | { kind: "records"; records: FetchedRecord[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

/** A stream cut at frame boundaries without decoding records: whole batch frames (in parts), then the end. */
export type StreamPiece =
  | { kind: "batch"; parts: Buffer[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

function errorOf(json: Buffer): DataPlaneError {
  const body = JSON.parse(json.toString("utf8")) as { code: string; message: string; retriable: boolean };
  const code = isDataPlaneErrorCode(body.code) ? body.code : "INTERNAL";
  return new DataPlaneError(code, body.message, { retriable: body.retriable });
}

/**
 * Cuts the chunks of a stream body at frame boundaries, touching only frame headers (a few per
 * megabyte): batch frames come out whole (as views of the chunks they arrived in, no copy), so
 * whoever forwards them never sends half a frame before an error. Throws the worker's
 * DataPlaneError for an error frame, and INTERNAL when the body ends mid-frame or without an end.
 */
export async function* splitStreamFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<StreamPiece> {
  const parts: Buffer[] = [];
  /** Bytes of the current frame still to come; its header is collected in `head` first. */
  let remaining = 0;
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  const source = chunks[Symbol.asyncIterator]();
  try {
    for (let next = await source.next(); !next.done; next = await source.next()) {
      const chunk = next.value;
      let pos = 0;
      while (pos < chunk.length) {
        if (ended) throw new DataPlaneError("INTERNAL", "bytes after a partition stream's end frame");
        if (remaining > 0) {
          // Inside a batch body: take what this chunk has of it.
          const n = Math.min(remaining, chunk.length - pos);
          parts.push(chunk.subarray(pos, pos + n));
          pos += n;
          remaining -= n;
          if (remaining === 0) yield { kind: "batch", parts: parts.splice(0) };
          continue;
        }
        const kind = head.length ? head[0] : chunk[pos];
        const headerBytes = streamFrameHeadBytes(kind);
        if (headerBytes < 0) throw new DataPlaneError("INTERNAL", `stream frame of unknown kind ${kind}`);
        // A header split across chunks is gathered (a few bytes) before the frame is read.
        const take = Math.min(headerBytes - head.length, chunk.length - pos);
        head = Buffer.concat([head, chunk.subarray(pos, pos + take)]);
        pos += take;
        if (head.length < headerBytes) continue;
        const frame = readStreamFrameHead(head);
        if (frame.kind === "end") {
          ended = true;
          yield { kind: "end", endOffset: frame.endOffset, logStartOffset: frame.logStartOffset };
        } else if (frame.kind === "error") {
          // Rare and small: gather the JSON across chunks, then throw it.
          const length = frame.bodyBytes;
          let json = chunk.subarray(pos, pos + length);
          pos += json.length;
          if (json.length < length) {
            const rest: Buffer[] = [json];
            let have = json.length;
            while (have < length) {
              const more = await source.next();
              if (more.done) break;
              rest.push(more.value);
              have += more.value.length;
            }
            json = Buffer.concat(rest).subarray(0, length);
            if (json.length < length) break;
          }
          throw errorOf(json);
        } else {
          remaining = frame.bodyBytes;
          parts.push(head);
          if (remaining === 0) yield { kind: "batch", parts: parts.splice(0) };
        }
        head = Buffer.alloc(0);
      }
    }
  } finally {
    // Leaving early (the consumer stopped, or an error frame) ends the body's reading too.
    await source.return?.();
  }
  if (remaining > 0 || head.length || !ended) {
    throw new DataPlaneError("INTERNAL", "partition stream ended mid-way");
  }
}

/** A view of `bytes` as a Buffer (the encoders answer Uint8Arrays; in Node they are Buffers already). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export interface DecodeBatchOptions {
  /**
   * Keys, values and header values as views of the frame's bytes instead of copies: for a caller
   * that owns those bytes for as long as it keeps the records (a request body it decoded whole).
   * Views of socket chunks would pin them, and of a reused buffer would change under the caller.
   */
  views?: boolean;
}

/**
 * The records of one whole batch or stored frame (header included, as `splitStreamFrames` gives
 * it). A stored frame's records are views of one copy of the frame (whatever `views` says).
 */
export function decodeRecordBatch(
  parts: readonly Uint8Array[],
  options: DecodeBatchOptions = {},
): FetchedRecord[] {
  try {
    const one = parts.length === 1 ? asBuffer(parts[0]!) : null;
    if (parts[0]?.[0] === FRAME_KIND.STORED) {
      return decodeStoredFrame(one ? Buffer.from(one) : Buffer.concat(parts));
    }
    return decodeBatchFrame(one ?? Buffer.concat(parts), options.views === true);
  } catch (error) {
    if (error instanceof FrameFormatError) throw new DataPlaneError("INTERNAL", error.message);
    throw error;
  }
}

/** The stream's frames with their records decoded (what a reader that needs each record uses). */
export async function* decodeStreamFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<StreamFrame> {
  for await (const piece of splitStreamFrames(chunks)) {
    if (piece.kind === "end") yield piece;
    else yield { kind: "records", records: decodeRecordBatch(piece.parts) };
  }
}
