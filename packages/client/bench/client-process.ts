/**
 * The program doing the cold start in the cold-start bench: a process holding only
 * `@lastword/client` (no API server, database or Redis client, whose async hooks and heap would
 * slow its promises and its garbage collection). The bench sends it one task at a time over IPC and
 * gets back what it read and how long that took, timed here.
 */
import { LastwordClient } from "../src/index";

type Task =
  | { run: "map"; topic: string; via: "replay" | "snapshot"; format: "frames" | "ndjson" }
  | { run: "bytes"; topic: string };

const baseUrl = process.env.BENCH_BASE_URL!;
const apiKey = process.env.BENCH_API_KEY!;
const clients = {
  frames: new LastwordClient({ baseUrl, apiKey }),
  ndjson: new LastwordClient({ baseUrl, apiKey, streamFormat: "ndjson" }),
};

/** The binary replay of a topic over HTTP, its bytes counted and dropped: the transport alone. */
async function replayBytes(topic: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/v1/topics/${topic}/records/stream`, {
    headers: { authorization: `Bearer ${apiKey}`, accept: "application/vnd.lastword.frames" },
  });
  let bytes = 0;
  for await (const chunk of response.body!) bytes += chunk.byteLength;
  return bytes;
}

async function perform(task: Task): Promise<{ keys?: number; bytes?: number }> {
  if (task.run === "bytes") return { bytes: await replayBytes(task.topic) };
  const { state } = await clients[task.format].replayToMap(task.topic, { via: task.via });
  return { keys: state.size };
}

process.on("message", (message: Task | { start: true } | { stop: string }) => {
  if (!("run" in message)) return; // the profiler hook's
  const started = performance.now();
  perform(message).then(
    (result) => process.send?.({ ...result, seconds: (performance.now() - started) / 1000 }),
    (error: unknown) => process.send?.({ error: String(error) }),
  );
});
console.log("ready");
