/**
 * The program doing the cold start in the cold-start bench: a process holding only
 * `@lastword/client` (no API server, database or Redis client, whose async hooks and heap would
 * slow its promises and its garbage collection). The bench sends it one task at a time over IPC and
 * gets back what it read and how long that took, timed here.
 */
import { get } from "node:http";
import { connect } from "node:net";
import { LastwordClient } from "../src/index";

type Task =
  | { run: "map"; topic: string; via: "replay" | "snapshot"; format: "frames" | "ndjson" }
  | { run: "bytes"; topic: string }
  | { run: "floor"; transport: "fetch" | "http" | "tcp"; port: number };

const baseUrl = process.env.BENCH_BASE_URL!;
const apiKey = process.env.BENCH_API_KEY!;
const clients = {
  frames: new LastwordClient({ baseUrl, apiKey }),
  ndjson: new LastwordClient({ baseUrl, apiKey, streamFormat: "ndjson" }),
};

/** A fetch answer's body read to its end, its bytes counted and dropped. */
async function bodyBytes(response: Response): Promise<number> {
  let bytes = 0;
  for await (const chunk of response.body!) bytes += chunk.byteLength;
  return bytes;
}

/** The binary replay of a topic over HTTP, its bytes counted and dropped: the transport alone. */
async function replayBytes(topic: string): Promise<number> {
  return bodyBytes(
    await fetch(`${baseUrl}/api/v1/topics/${topic}/records/stream`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: "application/vnd.lastword.frames" },
    }),
  );
}

/** The bytes of bench/floor-server.ts over one loopback hop, counted and dropped: the transport floor. */
async function floorBytes(transport: "fetch" | "http" | "tcp", port: number): Promise<number> {
  if (transport === "fetch") return bodyBytes(await fetch(`http://127.0.0.1:${port}/`));
  let bytes = 0;
  return new Promise((resolve, reject) => {
    if (transport === "http") {
      get(`http://127.0.0.1:${port}/`, (response) => {
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on("end", () => resolve(bytes));
      }).on("error", reject);
      return;
    }
    // The fastest a node socket reads: into one reused buffer, no chunk allocated per read.
    const socket = connect({
      port,
      host: "127.0.0.1",
      onread: {
        buffer: Buffer.alloc(4 << 20),
        callback: (n) => {
          bytes += n;
          return true;
        },
      },
    });
    socket.on("end", () => resolve(bytes)).on("error", reject);
  });
}

async function perform(task: Task): Promise<{ keys?: number; bytes?: number }> {
  if (task.run === "bytes") return { bytes: await replayBytes(task.topic) };
  if (task.run === "floor") return { bytes: await floorBytes(task.transport, task.port) };
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
