/**
 * Loaded with `--import` into the cold-start bench's child processes (the worker, the web) when
 * BENCH_PROFILE is set: a CPU profiler the bench starts and stops over IPC around each measured
 * row, so each process's share of a row can be read apart. The process itself runs unchanged.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const session = new Session();
session.connect();
const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
await post("Profiler.enable");
await post("Profiler.setSamplingInterval", { interval: 100 });

process.on("message", (message: { start: true } | { stop: string } | object) => {
  const done = (error?: unknown) => process.send?.({ done: true, error: error ? String(error) : undefined });
  if ("start" in message) post("Profiler.start").then(() => done(), done);
  else if ("stop" in message) {
    post("Profiler.stop")
      .then((result) => writeFileSync(message.stop, JSON.stringify((result as { profile: unknown }).profile)))
      .then(() => done(), done);
  }
});
