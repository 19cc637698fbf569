// The entry of the inflate pool's threads (inflate-pool.ts): one compressed batch in, its plain
// copy or the reason it was refused out. Runs off the event loop, so a batch that inflates for
// tens of milliseconds costs a pool thread, never the requests of other tenants.
import {
  BATCH_HEADER_BYTES,
  batchCompression,
  CompressionError,
  compressionName,
  recordSkeleton,
  useCrc32c,
} from "@lastword/record-batch";
import { InflateLimitError, inflateBatchBounded } from "@lastword/record-batch/node-codecs";
import { crc32c } from "@node-rs/crc32";
import { Piscina, transferableSymbol, valueSymbol } from "piscina";
import type { InflateOutcome, InflateTask } from "./inflate-outcome";

// The plain copy's CRC is recomputed: hardware CRC-32C, as the log store installs it.
useCrc32c(crc32c);

export default async function inflate(task: InflateTask): Promise<InflateOutcome> {
  const batch = Buffer.from(task.batch.buffer, task.batch.byteOffset, task.batch.byteLength);
  // Wall time in the thread, which works on nothing else meanwhile (the inflate itself may run in
  // zlib's own threads, which the thread's CPU time would miss).
  const started = performance.now();
  const threadMs = () => performance.now() - started;
  try {
    const { batch: plain } = await inflateBatchBounded(batch, 0, task.maxBytes);
    const inflatedBytes = plain.length - BATCH_HEADER_BYTES;
    // A copy of its own, moved (not cloned) to the event loop's thread with the reply around it;
    // only the skeleton when the loop reads no values (a malformed batch goes whole, to be refused).
    const answer = (!task.values && recordSkeleton(plain)) || plain;
    const owned = answer === plain ? new Uint8Array(plain.length) : answer;
    if (owned !== answer) owned.set(plain);
    const reply: InflateOutcome = { ok: true, plain: owned, inflatedBytes, threadMs: threadMs() };
    return Piscina.move({
      [transferableSymbol]: owned.buffer,
      [valueSymbol]: reply,
    }) as unknown as InflateOutcome;
  } catch (error) {
    if (error instanceof InflateLimitError) {
      const inflatedBytes = error.inflatedBytes;
      return { ok: false, kind: "limit", message: error.message, inflatedBytes, threadMs: threadMs() };
    }
    if (!(error instanceof CompressionError)) throw error;
    const known = compressionName(batchCompression(batch, 0)) !== null;
    const kind = known ? "corrupt" : "unsupported";
    return { ok: false, kind, message: error.message, inflatedBytes: 0, threadMs: threadMs() };
  }
}
