// The entry of the inflate pool's threads (inflate-pool.ts): one compressed batch in, its plain
// copy or the reason it was refused out. Runs off the event loop, so a batch that inflates for
// tens of milliseconds costs a pool thread, never the requests of other tenants.
import { batchCompression, CompressionError, compressionName, useCrc32c } from "@lastword/record-batch";
import { InflateLimitError, inflateBatchBounded } from "@lastword/record-batch/node-codecs";
import { crc32c } from "@node-rs/crc32";
import { Piscina } from "piscina";
import type { InflateReply, InflateTask } from "./inflate-outcome";

// The plain copy's CRC is recomputed: hardware CRC-32C, as the log store installs it.
useCrc32c(crc32c);

export default async function inflate(task: InflateTask): Promise<InflateReply> {
  const batch = Buffer.from(task.batch.buffer, task.batch.byteOffset, task.batch.byteLength);
  try {
    const { batch: plain } = await inflateBatchBounded(batch, 0, task.maxBytes);
    // A copy of its own, so it moves to the event loop's thread rather than being cloned there.
    const owned = new Uint8Array(plain.length);
    owned.set(plain);
    return Piscina.move(owned) as Uint8Array;
  } catch (error) {
    if (error instanceof InflateLimitError) {
      return { ok: false, kind: "limit", message: error.message, inflatedBytes: error.inflatedBytes };
    }
    if (!(error instanceof CompressionError)) throw error;
    const known = compressionName(batchCompression(batch, 0)) !== null;
    return { ok: false, kind: known ? "corrupt" : "unsupported", message: error.message, inflatedBytes: 0 };
  }
}
