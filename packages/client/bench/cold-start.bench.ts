/**
 * The seeds' feature-flag cold start over REST, in the two states of bench/flag-states.ts (12
 * partitions of BENCH_KEYS keys × ~1.2 KiB values; (a) compacted, (b) dirty). For each state, the
 * cold start through the REST API (real HTTP on loopback) into a Map, via replay and via snapshot
 * (binary frames, the client's default; in (a) also NDJSON, and the transport alone), next to a raw read of
 * the same segment files in the same run. Three processes, as in production: the worker
 * (`apps/worker/src/main.ts`), the web (bench/web-process.ts: the API's REST handler on HTTP) and
 * this one, the program doing the cold start (its client; also the setup and the raw read).
 *
 *   flock -x /tmp/heavy.lock env BENCH_KEYS=340000 node --import tsx packages/client/bench/cold-start.bench.ts
 *   (default 60,000 keys; BENCH_PROFILE=<dir> writes a CPU profile per row)
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import {
  KEYS,
  PARTITIONS,
  spawnProcess,
  startFlagStack,
  startProfile,
  VALUE_BYTES,
  writeFlagState,
} from "./flag-states";

async function main() {
  const stack = await startFlagStack({ name: "cold_start" });
  const { baseUrl, task } = stack;
  const { client, web, worker } = stack.processes;
  const key = stack.apiKey.key;
  const rows: string[] = [];
  const seconds = new Map<string, number>();
  for (const state of ["compacted", "dirty"] as const) {
    const { topic, files, logBytes, stored, live } = await writeFlagState(stack, state);

    /** A row: `run` answers the records read and, when timed elsewhere (the client process), its seconds. */
    const measure = async (name: string, run: () => Promise<{ records: number; seconds?: number }>) => {
      const profile = await startProfile({ client, web, worker });
      const t0 = performance.now();
      const { records, seconds: timed } = await run();
      const s = timed ?? (performance.now() - t0) / 1000;
      await profile?.stop(`${state}-${name.replace(/\W+/g, "-")}`);
      seconds.set(`${state} ${name}`, s);
      rows.push(
        `| ${state} | ${name} | ${records.toLocaleString("en")} | ${s.toFixed(2)} | ${Math.round(records / s).toLocaleString("en")} | ${Math.round(logBytes / 1e6 / s)} |`,
      );
      console.error(rows.at(-1));
    };
    const intoMap = async (via: "replay" | "snapshot", format: "frames" | "ndjson") => {
      const { keys, seconds } = await task({ run: "map", topic, via, format });
      if (keys !== live) throw new Error(`${via}: ${keys} keys, expected ${live}`);
      return { records: via === "replay" ? stored : keys, seconds };
    };
    if (state === "compacted") {
      // The web and the worker are long-running processes: the first request they serve (database
      // connections, JIT) is not part of a client's cold start. The client process stays cold.
      const response = await fetch(`${baseUrl}/api/v1/topics/${topic}/records/stream`, {
        headers: { authorization: `Bearer ${key}`, accept: "application/vnd.lastword.frames" },
      });
      await response.arrayBuffer();
    }
    await measure("raw read of the segment files", async () => {
      let bytes = 0;
      for (const f of files) bytes += readFileSync(f).length;
      if (bytes !== logBytes) throw new Error("files changed under the raw read");
      return { records: stored };
    });
    await measure("replay → Map (REST binary)", () => intoMap("replay", "frames"));
    await measure("snapshot → Map (REST binary)", () => intoMap("snapshot", "frames"));
    if (state === "compacted") {
      // The NDJSON answer (what curl reads) once, for comparison; the dirty log would take minutes.
      await measure("replay → Map (REST NDJSON)", () => intoMap("replay", "ndjson"));
      // The transport alone: the same binary replay over HTTP, its bytes counted and dropped.
      await measure("replay bytes only, no Map (REST binary)", async () => {
        const { bytes, seconds } = await task({ run: "bytes", topic });
        if (bytes! < logBytes / 2) throw new Error(`only ${bytes} bytes`);
        return { records: stored, seconds };
      });
      // The floor under every REST row: the same bytes from memory over one loopback hop, with no
      // product code on either side (bench/floor-server.ts), read by the client process.
      const { child: floor } = await spawnProcess("packages/client/bench/floor-server.ts", {}, (line) =>
        line === "ready" ? true : undefined,
      );
      floor.send({ load: files });
      const [ports] = (await once(floor, "message")) as [{ http: number; tcp: number; bytes: number }];
      if (ports.bytes !== logBytes) throw new Error("files changed under the floor server");
      const floorRows = [
        ["tcp", "floor: the same bytes, one bare TCP hop, no HTTP"],
        ["http", "floor: the same bytes, one bare HTTP hop (node http)"],
        ["fetch", "floor: the same bytes, one bare HTTP hop (fetch)"],
      ] as const;
      for (const [transport, name] of floorRows) {
        await measure(name, async () => {
          const port = transport === "tcp" ? ports.tcp : ports.http;
          const { bytes, seconds } = await task({ run: "floor", transport, port });
          if (bytes !== logBytes) throw new Error(`${name}: ${bytes} of ${logBytes} bytes`);
          return { records: stored, seconds };
        });
      }
      floor.kill("SIGTERM");
      await once(floor, "exit");
    }
  }
  const ratio = (a: string, b: string) => (seconds.get(a)! / seconds.get(b)!).toFixed(3);
  console.log(
    `${new Date().toISOString()}; ${cpus().length} × ${cpus()[0]?.model}; node ${process.version}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `replay (a) throughput / raw (a): ${ratio("compacted raw read of the segment files", "compacted replay → Map (REST binary)")}; ` +
      `replay (b) / snapshot (b) time: ${ratio("dirty replay → Map (REST binary)", "dirty snapshot → Map (REST binary)")}; ` +
      `snapshot (a) / replay (a) time: ${ratio("compacted snapshot → Map (REST binary)", "compacted replay → Map (REST binary)")}; ` +
      `floor (a) throughput / raw (a): TCP ${ratio("compacted raw read of the segment files", "compacted floor: the same bytes, one bare TCP hop, no HTTP")}, ` +
      `node http ${ratio("compacted raw read of the segment files", "compacted floor: the same bytes, one bare HTTP hop (node http)")}, ` +
      `fetch ${ratio("compacted raw read of the segment files", "compacted floor: the same bytes, one bare HTTP hop (fetch)")}`,
  );
  console.log(`keys: ${KEYS} × ${VALUE_BYTES} B values, ${PARTITIONS} partitions`);
  console.log("| state | path | records | seconds | records/s | MB/s (of log on disk) |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);

  await stack.close();
}

await main();
