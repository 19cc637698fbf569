/**
 * The Kafka listener's benchmarks, each row next to a raw baseline measured in the same run:
 * - the seeds' feature-flag cold start (the states of `@lastword/client`'s bench: 12 partitions of
 *   BENCH_KEYS keys × ~1.2 KiB, (a) compacted, (b) dirty) read from offset 0 into a dict/Map by
 *   librdkafka (python3-confluent-kafka) and kafkajs, from the topic and from `<topic>.latest`,
 *   and by the REST replay, each against a raw read of the same segment files just before it;
 * - fetch throughput: `kcat -C -e` of the whole topic to /dev/null against the same raw read;
 * - produce of 1 KiB records, acks=all, in batches of 500, from librdkafka (python and kcat -P) and kafkajs against a
 *   raw write+fdatasync of the same bytes in the same batch sizes, and the in-process append.
 * Three processes as in production (worker, web, client: bench/flag-states.ts of the client
 * package), and one per Kafka client run (bench/librdkafka-client.py, bench/kafkajs-client.ts).
 */
import { spawn } from "node:child_process";
import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type FlagStack,
  type FlagState,
  KEYS,
  PARTITIONS,
  startFlagStack,
  startProfile,
  VALUE_BYTES,
  writeFlagState,
} from "@lastword/client/bench/flag-states";
import { PartitionLog } from "@lastword/logstore";
import { encodeRecordBatch } from "@lastword/record-batch";
import { Kafka, logLevel } from "kafkajs";
import { kcatSasl } from "../test/kafka-client";
import { memoryTopic, memoryView, startFloorBroker } from "./floor-broker";

const PRODUCE_BATCHES = 40;
const PRODUCE_RECORDS = 500;
const PRODUCE_VALUE_BYTES = 1024;
const PRODUCE_ROUNDS = 5;
const KAFKAJS_IN_FLIGHT = 5;
const PYTHON = "/usr/bin/python3";
/** Alternating rounds of a topic read and its view's: the view's speed-up is their per-round median. */
const PAIR_ROUNDS = 3;
const benchDir = fileURLToPath(new URL(".", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

type Row = {
  part: string;
  path: string;
  mb: number;
  seconds: number;
  /** The baseline's seconds for the same bytes, measured next to this row. */
  rawSeconds: number | null;
};

type PairSide = { path: string; read: () => Promise<{ seconds: number; keys?: number }> };
/** How many times faster the second of a pair read than the first: the median of the rounds and each round's. */
type Speedup = { name: string; median: number; rounds: number[] };

/** Runs a command to its end; its last stdout line parsed as JSON. */
function runJson<T>(command: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${command} ${args[0]} ${args[1]} exited ${code}: ${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as T);
    });
  });
}

/** A kcat run to its end, its output to /dev/null; its wall time, process start included. */
function kcat(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("kcat", args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve((performance.now() - started) / 1000)
        : reject(new Error(`kcat ${code}: ${stderr}`)),
    );
  });
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** The raw read of a state's segment files (page cache): the median of three, the machine being shared. */
function rawRead(state: FlagState): number {
  const once = () => {
    const started = performance.now();
    let bytes = 0;
    for (const f of state.files) bytes += readFileSync(f).length;
    if (bytes !== state.logBytes) throw new Error("files changed under the raw read");
    return (performance.now() - started) / 1000;
  };
  return median([once(), once(), once()]);
}

export async function kafkaBenchmark(): Promise<void> {
  const stack = await startFlagStack({
    name: "kafka",
    // kafkajs consumers join a group; Kafka's 3 s first-join delay is not part of a read.
    workerEnv: { WORKER_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0" },
    scopes: ["topics:read", "topics:write", "records:read", "records:write", "groups:read", "groups:write"],
  });
  try {
    await run(stack);
  } finally {
    await stack.close();
  }
}

async function run(stack: FlagStack): Promise<void> {
  // The default 64 MiB/s produce-bytes quota would throttle the produce rows themselves.
  await stack.db.prisma.quota.create({
    data: {
      organizationId: stack.tenant.organizationId,
      maxPartitions: 1000,
      maxStoredBytes: 1n << 50n,
      produceBytesPerSecond: 2_000_000_000,
      requestsPerSecond: 100_000,
    },
  });
  const bootstrap = `${stack.kafka!.host}:${stack.kafka!.port}`;
  const login = [bootstrap, stack.apiKey.id, stack.apiKey.key];
  const kcatLogin = kcatSasl(bootstrap, { id: stack.apiKey.id, secret: stack.apiKey.key });
  const kafkajsEntry = join(benchDir, "kafkajs-client.ts");
  const kafkajs = (...args: string[]) =>
    runJson<{ seconds: number; records: number; keys?: number }>(process.execPath, [
      "--import",
      "tsx",
      kafkajsEntry,
      ...args,
    ]);
  const librdkafka = (...args: string[]) =>
    runJson<{ seconds: number; records: number; keys?: number }>(PYTHON, [
      join(benchDir, "librdkafka-client.py"),
      ...args,
    ]);
  const admin = new Kafka({
    brokers: [bootstrap],
    sasl: { mechanism: "plain", username: stack.apiKey.id, password: stack.apiKey.key },
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();

  const rows: Row[] = [];
  const speedups: Speedup[] = [];
  const print = (row: Row) => {
    rows.push(row);
    console.error(formatRow(row));
  };
  for (const stateName of ["compacted", "dirty"] as const) {
    const state = await writeFlagState(stack, stateName);
    const part = `cold start (${stateName === "compacted" ? "a" : "b"}) ${stateName}`;
    const mb = state.logBytes / 1e6;
    const view = `${state.topic}.latest`;
    const hasView = (await admin.listTopics()).includes(view);
    if (stateName === "compacted") {
      // The worker and web are long-running: their first reads (JIT, connections) are not a
      // client's cold start. Each client process below starts cold.
      await kcat([...kcatLogin, "-C", "-t", state.topic, "-e", "-q"]);
      await stack.task({ run: "bytes", topic: state.topic });
    }
    print({
      part,
      path: "raw read of the segment files (baseline)",
      mb,
      seconds: rawRead(state),
      rawSeconds: null,
    });
    /** A row read from offset 0: `read` answers its own seconds and, for a dict/Map, its keys. */
    const measure = async (path: string, read: () => Promise<{ seconds: number; keys?: number }>) => {
      const rawSeconds = rawRead(state);
      const profile = await startProfile({ worker: stack.processes.worker });
      const { seconds, keys } = await read();
      await profile?.stop(`${stateName}-${path.replace(/\W+/g, "-")}`);
      if (keys !== undefined && keys !== state.live)
        throw new Error(`${path}: ${keys} keys, expected ${state.live}`);
      print({ part, path, mb, seconds, rawSeconds });
    };
    /**
     * Two reads of the same state in alternating rounds, each after its own raw read: each row shows
     * the median seconds and the median of its per-round ratios to the raw read; returned, the
     * median of the per-round ratios of the first's time to the second's.
     */
    const measurePair = async (name: string, ...pair: [PairSide, PairSide]): Promise<Speedup> => {
      const seconds = pair.map(() => [] as number[]);
      const ratios = pair.map(() => [] as number[]);
      const speedup: number[] = [];
      for (let round = 0; round < PAIR_ROUNDS; round++) {
        for (const [i, side] of pair.entries()) {
          const rawSeconds = rawRead(state);
          const { seconds: s, keys } = await side.read();
          if (keys !== undefined && keys !== state.live)
            throw new Error(`${side.path}: ${keys} keys, expected ${state.live}`);
          seconds[i]!.push(s);
          ratios[i]!.push(rawSeconds / s);
        }
        speedup.push(seconds[0]!.at(-1)! / seconds[1]!.at(-1)!);
      }
      for (const [i, side] of pair.entries()) {
        const s = median(seconds[i]!);
        print({ part, path: side.path, mb, seconds: s, rawSeconds: median(ratios[i]!) * s });
      }
      return { name, median: median(speedup), rounds: speedup };
    };
    if (!hasView) throw new Error(`${view} is not listed: every compacted topic has a view`);
    // The clients the view is for, the topic and the view in alternating rounds: each round's
    // topic/view ratio is taken next to its own load, and the median of the rounds is the figure.
    const dict = (bootstrap: string[]) => (topic: string) => () =>
      librdkafka("consume", ...bootstrap, topic, String(PARTITIONS));
    const fetchAll = (bootstrap: string[]) => (topic: string) => async () => ({
      seconds: await kcat([...bootstrap, "-C", "-t", topic, "-e", "-q"]),
    });
    const viaListener = { dict: dict(login), kcat: fetchAll(kcatLogin) };
    speedups.push(
      await measurePair(
        `${part}: librdkafka → dict`,
        { path: "librdkafka → dict, the topic", read: viaListener.dict(state.topic) },
        { path: "librdkafka → dict, `<topic>.latest`", read: viaListener.dict(view) },
      ),
      await measurePair(
        `${part}: kcat -C -e`,
        { path: "fetch: kcat -C -e → /dev/null, the topic", read: viaListener.kcat(state.topic) },
        { path: "fetch: kcat -C -e → /dev/null, `<topic>.latest`", read: viaListener.kcat(view) },
      ),
    );
    for (const topic of [state.topic, view]) {
      const from = topic === view ? "`<topic>.latest`" : "the topic";
      await measure(`kafkajs → Map, ${from}`, () => kafkajs("consume", ...login, topic));
    }
    await measure("REST replay → Map (binary frames)", () =>
      stack.task({ run: "map", topic: state.topic, via: "replay", format: "frames" }),
    );
    // The floor: the same clients against the same batches served from memory by a trivial broker,
    // the view's as the view would serve them.
    const stored = memoryTopic(state.files);
    const floor = await startFloorBroker({
      topics: { [state.topic]: stored, [view]: memoryView(stored) },
      produceFile: join(stack.dataDir, "floor-produce.log"),
    });
    const viaFloor = { dict: dict([floor.bootstrap, "-", "-"]), kcat: fetchAll(["-b", floor.bootstrap]) };
    speedups.push(
      await measurePair(
        `${part}: floor, librdkafka → dict`,
        { path: "floor: librdkafka → dict, in-memory broker, the topic", read: viaFloor.dict(state.topic) },
        { path: "floor: librdkafka → dict, in-memory broker, the view's batches", read: viaFloor.dict(view) },
      ),
    );
    await measure("floor: kcat -C -e → /dev/null, in-memory broker, the topic", viaFloor.kcat(state.topic));
    await measure("floor: kcat -C -e → /dev/null, in-memory broker, the view's batches", viaFloor.kcat(view));
    await floor.close();
  }
  await admin.disconnect();
  await produceRows(stack, { login, kcatLogin }, { librdkafka, kafkajs }, print);

  console.log(
    `\nKafka bench — ${new Date().toISOString()}; ${cpus().length} × ${cpus()[0]?.model}; node ${process.version}; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; ${KEYS} keys × ${VALUE_BYTES} B values, ${PARTITIONS} partitions`,
  );
  console.log("| part | path | MB | seconds | MB/s | ratio × raw (same run) |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) console.log(formatRow(row));
  const find = (part: string, path: string) =>
    rows.find((r) => r.part.startsWith(part) && r.path.startsWith(path));
  const ratio = (r: Row | undefined) => (r?.rawSeconds ? r.rawSeconds / r.seconds : Number.NaN);
  const aTopic = find("cold start (a)", "librdkafka → dict, the topic");
  const bView = speedups.find((x) => x.name === "cold start (b) dirty: librdkafka → dict");
  for (const x of speedups) {
    console.log(
      `${x.name}: the view ${x.median.toFixed(2)} × faster than the topic (median of rounds ${x.rounds.map((r) => r.toFixed(2)).join(", ")})`,
    );
  }
  const fetches = rows.filter((r) => r.path.startsWith("fetch: kcat") && r.path.endsWith("the topic"));
  const produce = find("produce", "librdkafka");
  console.log(
    `targets: librdkafka cold start (a) ${ratio(aTopic).toFixed(2)} × raw read (≥ 0.3); ` +
      `(b) through the view ${bView?.median.toFixed(2)} × faster than the topic (≥ 3); ` +
      `kcat fetch ${fetches.map((r) => ratio(r).toFixed(2)).join(" / ")} × raw read (≥ 0.5); ` +
      `librdkafka produce ${ratio(produce).toFixed(2)} × raw write+fdatasync (≥ 0.6)`,
  );
}

function formatRow(row: Row): string {
  const cells = [
    row.seconds.toFixed(2),
    (row.mb / row.seconds).toFixed(0),
    row.rawSeconds === null ? "1 (baseline)" : (row.rawSeconds / row.seconds).toFixed(2),
  ];
  return `| ${row.part} | ${row.path} | ${row.mb.toFixed(0)} | ${cells.join(" | ")} |`;
}

/** kcat -P as the python producer is set: acks=all, batches of PRODUCE_RECORDS, 50 ms linger. */
const KCAT_PRODUCE_PROPERTIES = [
  "acks=all",
  `batch.num.messages=${PRODUCE_RECORDS}`,
  `batch.size=${4 << 20}`,
  "linger.ms=50",
].flatMap((p) => ["-X", p]);

/** The end offset of `topic`'s partition 0, asked of the listener (kcat reports no delivery count). */
async function producedCounter(login: string[], topic: string) {
  const [bootstrap, username, password] = login as [string, string, string];
  const admin = new Kafka({
    brokers: [bootstrap],
    sasl: { mechanism: "plain", username, password },
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  const count = async () =>
    Number((await admin.fetchTopicOffsets(topic)).find((p) => p.partition === 0)!.high);
  return Object.assign(count, { close: () => admin.disconnect() });
}

type ClientRun = (...args: string[]) => Promise<{ seconds: number; records: number }>;

/**
 * Produce of PRODUCE_BATCHES × PRODUCE_RECORDS × 1 KiB to a one-partition topic, in alternating
 * rounds: raw write+fdatasync of the same batches encoded, the in-process append, librdkafka,
 * kafkajs. Each path's ratio is taken per round against that round's raw write; the median is shown.
 */
async function produceRows(
  stack: FlagStack,
  { login, kcatLogin }: { login: string[]; kcatLogin: string[] },
  clients: { librdkafka: ClientRun; kafkajs: ClientRun },
  print: (row: Row) => void,
): Promise<void> {
  const topic = "produce-bench";
  await stack.admin.topics.create({
    name: topic,
    partitions: 1,
    configs: { "segment.bytes": String(256 << 20) },
  });
  const value = Buffer.alloc(PRODUCE_VALUE_BYTES, "v");
  const batches = Array.from({ length: PRODUCE_BATCHES }, (_, b) =>
    Array.from({ length: PRODUCE_RECORDS }, (_, i) => ({ key: Buffer.from(`key-${b}-${i}`), value })),
  );
  const encoded = batches.map((records) =>
    encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: Date.now() }),
  );
  const mb = encoded.reduce((n, b) => n + b.length, 0) / 1e6;
  const scratch = join(stack.dataDir, "produce-baselines");
  mkdirSync(scratch, { recursive: true });
  const rawWrite = () => {
    const file = join(scratch, "raw.log");
    const fd = openSync(file, "w");
    const started = performance.now();
    for (const batch of encoded) {
      writeSync(fd, batch);
      fdatasyncSync(fd);
    }
    const seconds = (performance.now() - started) / 1000;
    closeSync(fd);
    rmSync(file);
    return seconds;
  };
  const append = async () => {
    const dir = join(scratch, "append");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const log = await PartitionLog.open({ dir, config: { "segment.bytes": 256 << 20 } });
    const started = performance.now();
    for (const records of batches) await log.append(records);
    const seconds = (performance.now() - started) / 1000;
    await log.close();
    return seconds;
  };
  const shape = [String(PRODUCE_BATCHES), String(PRODUCE_RECORDS), String(PRODUCE_VALUE_BYTES)];
  const paths: { path: string; run: () => Promise<number> }[] = [
    { path: "in-process append (PartitionLog.append)", run: append },
    {
      path: "librdkafka (confluent_kafka) acks=all",
      run: async () => (await clients.librdkafka("produce", ...login, topic, ...shape)).seconds,
    },
    {
      path: `kafkajs acks=-1, ${KAFKAJS_IN_FLIGHT} sends in flight`,
      run: async () =>
        (await clients.kafkajs("produce", ...login, topic, ...shape, String(KAFKAJS_IN_FLIGHT))).seconds,
    },
  ];
  // kcat: librdkafka with no Python in between, the records read from a file ("key:value" lines).
  const lines = join(scratch, "kcat-input.txt");
  writeFileSync(
    lines,
    batches
      .flat()
      .map((r) => `${r.key}:${r.value}\n`)
      .join(""),
  );
  const kcatProduce = (bootstrap: string[]) => () =>
    kcat([...bootstrap, "-P", "-t", topic, "-p", "0", "-K", ":", "-l", lines, ...KCAT_PRODUCE_PROPERTIES]);
  const produced = await producedCounter(login, topic);
  paths.push({
    path: "kcat -P -l (librdkafka) acks=all, process start and login included",
    run: async () => {
      const before = await produced();
      const seconds = await kcatProduce(kcatLogin)();
      const count = (await produced()) - before;
      if (count !== PRODUCE_BATCHES * PRODUCE_RECORDS) throw new Error(`kcat -P: ${count} records appended`);
      return seconds;
    },
  });
  // The floors: each librdkafka producer to a broker that only writes and fdatasyncs what it receives.
  const floor = await startFloorBroker({ topics: {}, produceFile: join(scratch, "floor.log") });
  paths.push(
    {
      path: "floor: librdkafka acks=all → broker doing only write+fdatasync",
      run: async () =>
        (await clients.librdkafka("produce", floor.bootstrap, "-", "-", topic, ...shape)).seconds,
    },
    {
      path: "floor: kcat -P -l → broker doing only write+fdatasync",
      run: kcatProduce(["-b", floor.bootstrap]),
    },
  );
  const raw: number[] = [];
  const seconds = paths.map(() => [] as number[]);
  const ratios = paths.map(() => [] as number[]);
  await append(); // warm-up: the append path's code and the file system
  for (let round = 0; round < PRODUCE_ROUNDS; round++) {
    const baseline = rawWrite();
    raw.push(baseline);
    for (const [i, p] of paths.entries()) {
      const s = await p.run();
      seconds[i]!.push(s);
      ratios[i]!.push(baseline / s);
    }
  }
  await floor.close();
  await produced.close();
  const part = `produce ${PRODUCE_BATCHES} × ${PRODUCE_RECORDS} × 1 KiB, median of ${PRODUCE_ROUNDS} rounds`;
  print({
    part,
    path: "raw write+fdatasync per batch (baseline)",
    mb,
    seconds: median(raw),
    rawSeconds: null,
  });
  for (const [i, p] of paths.entries()) {
    // rawSeconds chosen so that rawSeconds / seconds is the median of the per-round ratios.
    const s = median(seconds[i]!);
    print({ part, path: p.path, mb, seconds: s, rawSeconds: median(ratios[i]!) * s });
  }
}
