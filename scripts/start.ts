// `npm start`: check Postgres and Redis, migrate, build, start web + one worker, seed the demo tenant.
import { type ChildProcess, spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureDatabase, migrate } from "@lastword/db";
import { readStartEnv, sharedEnv, workerSettings } from "./start/env";
import { checkPostgres, checkRedis } from "./start/preflight";
import { BUILD_COMMAND, spawnInProcessGroup, WEB_COMMAND, WORKER_COMMAND } from "./start/processes";
import { localSecrets } from "./start/secrets";

const root = fileURLToPath(new URL("..", import.meta.url));
const stateDir = join(root, ".lastword");
const children: ChildProcess[] = [];

function stopAll(): void {
  for (const child of children) {
    if (child.pid === undefined || child.exitCode !== null) continue;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
}

function fail(sentence: string): never {
  console.error(sentence);
  stopAll();
  process.exit(1);
}

function run(name: string, command: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawnInProcessGroup(command, root, env);
  const prefix = `[${name}] `;
  child.stdout?.on("data", (chunk: Buffer) => process.stdout.write(prefixLines(prefix, chunk)));
  child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(prefixLines(prefix, chunk)));
  child.on("exit", (code, signal) => {
    if (!shuttingDown)
      fail(`The ${name} process stopped (${signal ?? `exit code ${code}`}); see its log above.`);
  });
  children.push(child);
  return child;
}

function prefixLines(prefix: string, chunk: Buffer): string {
  return chunk
    .toString()
    .split("\n")
    .map((line, i, all) => (i === all.length - 1 && line === "" ? "" : prefix + line))
    .join("\n");
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/api/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  fail(
    `The console did not answer at ${url}/api/health within ${timeoutMs / 1000} s; see the web log above.`,
  );
}

let shuttingDown = false;
function shutdown(): void {
  shuttingDown = true;
  stopAll();
  setTimeout(() => process.exit(0), 10_000).unref();
  Promise.all(children.map((c) => new Promise((r) => c.once("exit", r)))).then(() => process.exit(0));
}

async function main(): Promise<void> {
  let env: ReturnType<typeof readStartEnv>;
  try {
    env = readStartEnv();
  } catch (error) {
    fail((error as Error).message);
  }
  const problems = await Promise.all([checkPostgres(env.DATABASE_URL), checkRedis(env.REDIS_URL)]);
  const problem = problems.find((p) => p !== null);
  if (problem) fail(problem);

  await ensureDatabase(env.DATABASE_URL);
  const applied = await migrate(env.DATABASE_URL);
  console.log(
    applied.length ? `Applied migrations: ${applied.join(", ")}` : "Database schema is up to date.",
  );

  const secrets = localSecrets(join(stateDir, "secrets.json"));
  const url = env.PUBLIC_URL ?? `http://localhost:${env.PORT}`;
  const shared = sharedEnv(env, secrets.internalSecret);

  if (env.LASTWORD_SKIP_BUILD === "0") {
    console.log("Building (next build)…");
    const build = spawnSync(BUILD_COMMAND, { cwd: root, env: shared, shell: true, stdio: "inherit" });
    if (build.status !== 0) fail("The build failed; see its output above.");
  }

  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  const worker = workerSettings(env, stateDir);
  run("worker", WORKER_COMMAND, { ...shared, ...worker.env });
  run("web", WEB_COMMAND, {
    ...shared,
    PORT: String(env.PORT),
    PUBLIC_URL: url,
    BETTER_AUTH_SECRET: secrets.authSecret,
  });
  await waitForHealth(url, 90_000);

  // Loaded late: the control plane pulls in auth and Prisma, which a failed preflight never needs.
  const { demoSeedOptions, seedDemo } = await import("./start/demo");
  const demo = await seedDemo(
    demoSeedOptions(env, {
      file: join(stateDir, "demo.json"),
      url,
      secrets,
      kafkaBootstrap: worker.kafkaBootstrap,
    }),
  );
  console.log(
    [
      "",
      `Lastword is running: ${demo.url}`,
      `  Kafka bootstrap: ${demo.kafka.bootstrap} (SASL_PLAINTEXT; PLAIN or SCRAM-SHA-256/512)`,
      `  demo login: ${demo.email} / ${demo.password}`,
      `  demo API key (tenant ${demo.tenant}): ${demo.apiKey}`,
      `  Kafka login: username ${demo.kafka.username}, password = the demo API key`,
      `  Schema Registry: ${demo.schemaRegistry.url} (HTTP Basic: the same username and key)`,
      "  (also written to .lastword/demo.json)  Stop with Ctrl+C.",
      "",
    ].join("\n"),
  );
}

main().catch((error: unknown) => fail(`npm start failed: ${(error as Error).message}`));
