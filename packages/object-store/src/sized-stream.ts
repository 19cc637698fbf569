import { Transform } from "node:stream";
import { ObjectStoreError } from "./object-store";

/**
 * Passes `body` through, failing the stream when it carries more or fewer than `size` bytes: a
 * streamed put must not complete an object of another length than its caller declared (a file
 * truncated or grown under the upload), so the failure reaches the writer before it commits.
 */
export function exactly(size: number, key: string): Transform {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new ObjectStoreError("INVALID_RANGE", `invalid size ${size} for a streamed put of ${key}`);
  }
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > size) done(lengthError(key, size, `more than ${size}`));
      else done(null, chunk);
    },
    flush(done) {
      done(seen === size ? null : lengthError(key, size, String(seen)));
    },
  });
}

function lengthError(key: string, size: number, seen: string): Error {
  return new Error(`streamed put of ${key} declared ${size} bytes and was given ${seen}`);
}
