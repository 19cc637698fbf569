import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, readFileSync, symlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createApiServer, outboxMailSender } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma } from "@lastword/db";
import { createTestDatabase, eventually, type TestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type Service, tailOf, waitForOutput } from "../e2e/services";
import { type DemoFile, demoSeedOptions, seedDemo } from "../scripts/start/demo";
import { readStartEnv, sharedEnv, workerSettings } from "../scripts/start/env";
import { spawnInProcessGroup, WORKER_COMMAND } from "../scripts/start/processes";
import { localSecrets } from "../scripts/start/secrets";

// The root README's Kafka examples, run as written: its sh blocks are extracted from README.md
// and run by bash (kafkajs through `node --input-type=module`, kcat with the README's arguments)
// against a service set up as `npm start` sets it up — the same env, secrets, worker command
// and demo seeding, in a temporary directory whose `.lastword/demo.json` the examples read. The
// console's REST routes are the api package's `handleRest`, the function the web app's
// `/api/v1` route calls, served here without building Next. Only the two addresses change: the
// README names npm start's defaults, which a shared machine may already be using.

const root = fileURLToPath(new URL("..", import.meta.url));
const README = readFileSync(join(root, "README.md"), "utf8");
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const START_TIMEOUT_MS = 60_000;

/** npm start's defaults, which the README's commands name. */
const defaults = readStartEnv({});
const DEFAULT_BOOTSTRAP = workerSettings(defaults, "/unused").kafkaBootstrap;
const DEFAULT_WEB = `localhost:${defaults.PORT}`;

/** The README's ```sh blocks, in order. */
function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** The one sh block containing `marker` (a README edit that drops or splits it fails here). */
function blockWith(marker: string): string {
  const found = shBlocks(README).filter((block) => block.includes(marker));
  if (found.length !== 1) throw new Error(`README.md has ${found.length} sh blocks containing ${marker}`);
  return found[0]!;
}

/** The lines a block's `# → …` comment says its commands print (continued by `#   …` lines). */
function promisedOutput(block: string): string[] {
  const lines = block.split("\n");
  const start = lines.findIndex((line) => line.startsWith("# → "));
  if (start < 0) return [];
  const promised = [lines[start]!.slice("# → ".length)];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("#   ")) break;
    promised.push(line.slice("#   ".length));
  }
  return promised;
}

/** A line of the README's that defines a shell variable (`KEY=$(…)`), to run a later block alone. */
function assignment(name: string): string {
  const line = README.split("\n").find((l) => l.startsWith(`${name}=$(`));
  if (!line) throw new Error(`README.md never sets ${name}`);
  return line;
}

let db: TestDatabase;
let workDir: string;
let stateDir: string;
let redisPrefix: string;
let worker: Service;
let web: Server;
let webHost: string;
let bootstrap: string;
let demo: DemoFile;
const closers: (() => Promise<unknown>)[] = [];

/** A README block with npm start's default addresses pointed at this test's service. */
function localized(block: string): string {
  return block.replaceAll(DEFAULT_BOOTSTRAP, bootstrap).replaceAll(DEFAULT_WEB, webHost);
}

/** Runs `script` with bash from the temporary checkout root (where `.lastword/` is). */
function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-eo", "pipefail", "-c", script], { cwd: workDir, env: process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function expectRuns(script: string): Promise<string> {
  const result = await bash(script);
  expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/** The console's REST and schema-registry routes: what the web app's `/api/v1` and `/schema-registry` routes do, on node:http. */
async function serveRest(
  port: number,
  handlers: Record<"rest" | "schemaRegistry", (request: Request) => Promise<Response>>,
): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        ...(hasBody && { body: Buffer.concat(chunks) }),
      });
      const response = req.url?.startsWith("/api/v1")
        ? await handlers.rest(request)
        : req.url?.startsWith("/schema-registry")
          ? await handlers.schemaRegistry(request)
          : new Response("not found", { status: 404 });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_readme");
  closers.push(() => db.drop());
  redisPrefix = `lastword-readme-${randomBytes(4).toString("hex")}`;
  workDir = await mkdtemp(join(tmpdir(), "lastword-readme-"));
  // Retried: a process of the stack may still be removing its own files as it exits (ENOTEMPTY).
  closers.push(() => rm(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  stateDir = join(workDir, ".lastword");
  // "From the repository root": the examples import kafkajs as the checkout's node_modules has it.
  symlinkSync(join(root, "node_modules"), join(workDir, "node_modules"));

  const [kafkaPort, webPort] = [await freePort(), await freePort()];
  const env = readStartEnv({
    DATABASE_URL: db.url,
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    PORT: String(webPort),
    WORKER_KAFKA_PORT: String(kafkaPort),
  });
  const secrets = localSecrets(join(stateDir, "secrets.json"));
  const url = `http://localhost:${env.PORT}`;
  webHost = `localhost:${env.PORT}`;
  const shared = sharedEnv(env, secrets.internalSecret);
  const settings = workerSettings(env, stateDir);
  bootstrap = settings.kafkaBootstrap;
  worker = startWorkerCommand({ ...shared, ...settings.env });
  closers.push(() => stopProcessGroup(worker.child));

  const prisma = createPrisma(env.DATABASE_URL, { maxConnections: 4 });
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
  const api = createApiServer({
    prisma,
    redis,
    redisPrefix: env.REDIS_PREFIX,
    dataPlane: new DataPlaneClient({ prisma, secret: secrets.internalSecret }),
    publicUrl: url,
    authSecret: secrets.authSecret,
    mailSender: outboxMailSender(),
  });
  web = await serveRest(env.PORT, {
    rest: (request) => api.handleRest(request),
    schemaRegistry: (request) => api.handleSchemaRegistry(request),
  });
  closers.push(async () => {
    await new Promise((resolve) => web.close(resolve));
    await api.close(5_000);
    redis.disconnect();
    await prisma.$disconnect();
    await deleteRedisKeys(redisPrefix);
  });
  await waitForOutput(worker, "worker ready", START_TIMEOUT_MS).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await tailOf(worker)}`);
  });
  demo = await seedDemo(
    demoSeedOptions(env, {
      file: join(stateDir, "demo.json"),
      url,
      secrets,
      kafkaBootstrap: settings.kafkaBootstrap,
    }),
  );
});

afterAll(async () => {
  // In reverse: the worker stops before the database it uses is dropped.
  for (const close of closers.reverse()) await close();
});

/** `npm start`'s worker: the same command, in a process group of its own as start.ts runs it. */
function startWorkerCommand(env: NodeJS.ProcessEnv): Service {
  const logPath = join(workDir, "worker.log");
  const child = spawnInProcessGroup(WORKER_COMMAND, root, env);
  const log = createWriteStream(logPath);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  return { name: "worker", child, logPath };
}

async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  await exited;
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

describe("the README's Kafka examples, as written", () => {
  it("name npm start's own addresses, and the demo file they read has the documented shape", () => {
    expect(README).toContain(DEFAULT_BOOTSTRAP);
    expect(README).toContain(DEFAULT_WEB);
    expect(README).toContain(
      '`{"url","email","password","apiKey","tenant","kafka":{"bootstrap","username","password"},"schemaRegistry":{"url","username","password"}}`',
    );
    expect(Object.keys(demo).sort()).toEqual([
      "apiKey",
      "email",
      "kafka",
      "password",
      "schemaRegistry",
      "tenant",
      "url",
    ]);
    expect(Object.keys(demo.kafka).sort()).toEqual(["bootstrap", "password", "username"]);
    expect(demo.kafka.bootstrap).toBe(bootstrap);
    expect(demo.schemaRegistry).toEqual({
      url: `http://${webHost}/schema-registry`,
      username: demo.kafka.username,
      password: demo.apiKey,
    });
  });

  it("the REST example, then the kafkajs example and kcat -C print what the README says", async () => {
    const rest = blockWith("/api/v1/topics -H");
    const kafka = blockWith("Partitioners.DefaultPartitioner");
    expect(kafka).toContain("-C -t users -e");
    const stdout = await expectRuns(localized(`${rest}\n${kafka}`));
    expect(stdout).toContain('{"results":[{"partition":');
    const lines = stdout.split("\n");
    const promised = promisedOutput(kafka);
    expect(promised).toEqual(["hello", "hi from kafkajs"]);
    for (const line of promised) expect(lines).toContain(line);
  });

  it("the consumer-group example: the kafkajs member prints both records and commits, the lag is 0, and kcat -G reads both and commits on Ctrl-C", async () => {
    const block = blockWith('groupId: "readme-readers"');
    const kcatAt = block.search(/^kcat .*\\\n.*-G /m);
    expect(kcatAt).toBeGreaterThan(0);
    const [member, kcat] = [block.slice(0, kcatAt), block.slice(kcatAt)];
    const prelude = `${assignment("KEY")}\n${assignment("KAFKA_USER")}\n`;
    const stdout = await expectRuns(localized(prelude + member));
    const lines = stdout.split("\n");
    expect(lines).toContain("user-1: hello");
    expect(lines).toContain("user-2: hi from kafkajs");
    // kafkajs logs JSON lines too: the lag is curl's answer, the one naming the group.
    const lag = JSON.parse(lines.find((l) => l.startsWith('{"group":"readme-readers"'))!) as unknown;
    expect(totalLag(lag)).toBe(0);

    // The README's kcat -G runs until Ctrl-C. Its output to a pipe is block-buffered until it
    // exits, so the group's commits (the lag the REST API shows) say when it has read both records.
    const consumer = spawn("bash", ["-c", `${prelude}exec ${localized(kcat).trim()}`], {
      cwd: workDir,
      env: process.env,
    });
    let printed = "";
    let stderr = "";
    consumer.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    consumer.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => consumer.on("close", resolve));
    try {
      await eventually("kcat -G committed both records", 30_000, async () => {
        const answer = await kcatReadersLag();
        return answer !== null && totalLag(answer) === 0 ? true : undefined;
      }).catch((error: Error) => {
        throw new Error(`${error.message}\nstderr:\n${stderr}`);
      });
    } finally {
      consumer.kill("SIGINT");
    }
    expect(await exited, stderr).toBe(0);
    const values = printed.split("\n");
    expect(values).toContain("hello");
    expect(values).toContain("hi from kafkajs");
    expect(totalLag(await kcatReadersLag())).toBe(0);
  });

  it("the .latest view example prints each key's latest value as the README says", async () => {
    const block = blockWith("-t users.latest");
    const prelude = `${assignment("KEY")}\n${assignment("KAFKA_USER")}\n`;
    const lines = (await expectRuns(localized(prelude + block))).split("\n");
    const promised = promisedOutput(block);
    expect(promised).toEqual(["user-1=hello", "user-2=hi from kafkajs"]);
    for (const line of promised) expect(lines).toContain(line);
  });
});

describe("the README's schema-registry example, as written", () => {
  it("registers Avro, produces it through Kafka, and the REST read decodes it as the README says", async () => {
    const block = blockWith("@kafkajs/confluent-schema-registry");
    const lines = (await expectRuns(localized(`${assignment("KEY")}\n${block}`))).split("\n");
    const promised = promisedOutput(block);
    expect(promised).toEqual(["registered profiles-value as schema 1", '{"name":"Ada","visits":3}']);
    for (const line of promised) expect(lines).toContain(line);
  });
});

/** A lag answer's total (REST `GET /consumer-groups/{group}/lag`), for a group that committed. */
function totalLag(answer: unknown): number {
  const { partitions, totalLag } = answer as { partitions: unknown[]; totalLag: number };
  expect(partitions.length).toBeGreaterThan(0);
  return totalLag;
}

/** The kcat group's lag as the REST API answers it, or null while the group has committed nothing. */
async function kcatReadersLag(): Promise<unknown> {
  const response = await fetch(`http://${webHost}/api/v1/consumer-groups/kcat-readers/lag`, {
    headers: { authorization: `Bearer ${demo.apiKey}` },
  });
  if (response.status === 404) return null;
  expect(response.status).toBe(200);
  return response.json();
}
