import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

// A port nothing listens on: connecting is refused at once, as with a stopped server.
const CLOSED = "127.0.0.1:9";

// Failing fast is the preflight's bounded connect timeout (scripts/start/preflight.ts); here the
// process must exit by itself (no retry loop: the test timeout would end a hung one), code 1.
function runStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: root,
      env: { ...process.env, LASTWORD_SKIP_BUILD: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("npm start preflight", () => {
  it("stops with one sentence naming the Postgres URL when Postgres cannot be reached", async () => {
    const result = await runStart({ DATABASE_URL: `postgresql://postgres@${CLOSED}/lastword` });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Cannot reach PostgreSQL at postgresql:\/\/postgres@127\.0\.0\.1:9\/lastword: start it/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("stops with one sentence naming the Redis URL when Redis cannot be reached", async () => {
    const result = await runStart({ REDIS_URL: `redis://${CLOSED}` });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot reach Redis at redis:\/\/127\.0\.0\.1:9: start it/);
  });
});

describe("npm start's Kafka listener", () => {
  it("starts the worker listening on 127.0.0.1:9092 (overridable) and names that bootstrap address", async () => {
    const { readStartEnv, workerSettings } = await import("../scripts/start/env");
    const defaults = workerSettings(readStartEnv({}), "/state");
    expect(defaults.env).toEqual({
      LASTWORD_DATA_DIR: "/state/data",
      LASTWORD_OBJECT_STORE: "/state/objects",
      WORKER_KAFKA_HOST: "127.0.0.1",
      WORKER_KAFKA_PORT: "9092",
    });
    expect(defaults.kafkaBootstrap).toBe("127.0.0.1:9092");
    const bucket = "s3://lastword?region=us-east-1&endpoint=http://127.0.0.1:9000&forcePathStyle=true";
    expect(
      workerSettings(readStartEnv({ LASTWORD_OBJECT_STORE: bucket }), "/state").env.LASTWORD_OBJECT_STORE,
    ).toBe(bucket);
    const moved = workerSettings(
      readStartEnv({ WORKER_KAFKA_PORT: "19092", WORKER_KAFKA_ADVERTISED_HOST: "broker.local" }),
      "/state",
    );
    expect(moved.env.WORKER_KAFKA_PORT).toBe("19092");
    expect(moved.kafkaBootstrap).toBe("broker.local:19092");
    expect(() => readStartEnv({ WORKER_KAFKA_PORT: "0" })).toThrow(/WORKER_KAFKA_PORT/);

    // The worker accepts exactly that: plaintext SASL on loopback needs no opt-in.
    const { readWorkerEnv } = await import("../apps/worker/src/env");
    const worker = readWorkerEnv(defaults.env);
    expect([worker.WORKER_KAFKA_HOST, worker.WORKER_KAFKA_PORT]).toEqual(["127.0.0.1", 9092]);
    expect(readFileSync(`${root}/scripts/start.ts`, "utf8")).toMatch(
      /run\("worker", WORKER_COMMAND, \{ \.\.\.shared, \.\.\.worker\.env \}\)/,
    );
  });

  it("writes .lastword/demo.json with the Kafka login: bootstrap, the key's id as user name, the key as password", async () => {
    const { parseDemoFile } = await import("../scripts/start/demo");
    const demo = {
      url: "http://localhost:3000",
      email: "demo@lastword.local",
      password: "p",
      apiKey: "lw_secret",
      tenant: "demo",
      kafka: { bootstrap: "127.0.0.1:9092", username: "key-id", password: "lw_secret" },
      schemaRegistry: {
        url: "http://localhost:3000/schema-registry",
        username: "key-id",
        password: "lw_secret",
      },
    };
    expect(parseDemoFile(JSON.stringify(demo))).toEqual(demo);
    const { kafka: _, ...withoutKafka } = demo;
    expect(() => parseDemoFile(JSON.stringify(withoutKafka))).toThrow(/kafka/);
    const { schemaRegistry: __, ...withoutRegistry } = demo;
    expect(() => parseDemoFile(JSON.stringify(withoutRegistry))).toThrow(/schemaRegistry/);
  });
});
