/**
 * The client's share of a cold start, alone: `replayToMap` over an in-memory binary answer (12
 * partitions of stored frames of 500-record Kafka batches, ~1.2 KiB values, handed over in 64 KiB
 * chunks as `fetch` would), so the reader and the Map can be measured without the network or the
 * server. Four runs in one process (the first pays the JIT; later ones also collect the previous Map).
 *
 *   node --import tsx packages/client/bench/client-decode.bench.ts   (BENCH_RECORDS, default 300,000)
 */
import { encodeStoredHead } from "@lastword/frames";
import { encodeRecordBatch } from "@lastword/record-batch";
import { replayToMap } from "../src/replay";

const RECORDS = Number(process.env.BENCH_RECORDS ?? 300_000);
const PARTITIONS = 12;
const CHUNK_BYTES = 64 * 1024;
const FRAME_BYTES = 256 * 1024;

function answer(): Buffer {
  const value = "x".repeat(1200);
  const parts: Uint8Array[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    parts.push(Buffer.from([5, 0, 0, 0, p]));
    let batches: Buffer[] = [];
    let size = 0;
    const flush = () => {
      const bytes = Buffer.concat(batches);
      parts.push(encodeStoredHead(bytes.length, 0, Number.MAX_SAFE_INTEGER, null), bytes);
      batches = [];
      size = 0;
    };
    for (let k = 0; k < RECORDS / PARTITIONS; k += 500) {
      const records = Array.from({ length: 500 }, (_, i) => ({
        key: Buffer.from(`flag-${p}-${k + i}`),
        value: Buffer.from(`${k}:${value}`),
      }));
      const batch = encodeRecordBatch(records, { baseOffset: k, appendTimeMs: Date.now() });
      batches.push(batch);
      size += batch.length;
      if (size >= FRAME_BYTES) flush();
    }
    if (size) flush();
  }
  const offsets = Buffer.alloc(5 + 12 * PARTITIONS);
  offsets[0] = 6;
  offsets.writeUInt32BE(PARTITIONS, 1);
  for (let p = 0; p < PARTITIONS; p++) offsets.writeUInt32BE(p, 5 + p * 12);
  parts.push(offsets);
  return Buffer.concat(parts);
}

const body = answer();
console.log(`answer: ${(body.length / 1e6).toFixed(0)} MB, ${RECORDS} records`);
for (let run = 0; run < 4; run++) {
  let pos = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pos >= body.length) return controller.close();
      controller.enqueue(body.subarray(pos, pos + CHUNK_BYTES));
      pos += CHUNK_BYTES;
    },
  });
  const open = async () =>
    new Response(stream, { headers: { "content-type": "application/vnd.lastword.frames" } });
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { state } = await replayToMap(open, "t", { via: "replay" });
  const used = process.cpuUsage(cpu);
  console.log(
    `run ${run}: ${state.size} keys in ${(performance.now() - started).toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms)`,
  );
}
