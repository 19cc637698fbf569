import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BUILD_COMMAND, MIGRATE_COMMAND, WEB_COMMAND, WORKER_COMMAND } from "../scripts/start/processes";

// No Docker engine runs on our machines, so the compose file is held to `npm start` by reading it.
const root = fileURLToPath(new URL("..", import.meta.url));
const read = (path: string) => readFileSync(`${root}/${path}`, "utf8");

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string>;
  init?: boolean;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(read("docker-compose.yml"), { merge: true }) as { services: Record<string, Service> };
const commandOf = (service: Service) =>
  Array.isArray(service.command) ? service.command.join(" ") : (service.command ?? "");

/** Where the containers mount the generated secrets (the `secrets` volume). */
const SECRETS_DIR = "/run/lastword-secrets";
/** A compose command as the container's shell runs it (compose turns `$$` into `$`), secrets read from `dir`. */
const shellOf = (service: Service, dir: string) =>
  commandOf(service)
    .replace(/^sh -c /, "")
    .replaceAll("$$", "$")
    .replaceAll(SECRETS_DIR, dir);

// The `secrets` service's script, run once here by a real shell as the container runs it at first start.
const secretsDir = mkdtempSync(join(tmpdir(), "lastword-compose-secrets-"));
execFileSync("sh", ["-c", shellOf(compose.services.secrets!, secretsDir)]);
afterAll(() => rmSync(secretsDir, { recursive: true, force: true }));

/** The environment `lastword.env` exports, as the services that source it see it. */
function generatedEnv(dir = secretsDir): Record<string, string> {
  return printedEnv(`. ${dir}/lastword.env && env -0`, { NODE_ENV: "production" });
}

/** What `script` leaves in its shell's environment, started with only PATH and `env`. */
function printedEnv(script: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const printed = execFileSync("sh", ["-c", script], {
    env: { PATH: process.env.PATH, ...env },
    encoding: "utf8",
  });
  return Object.fromEntries(
    printed
      .split("\0")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

describe("docker-compose.yml", () => {
  it("has exactly the seven services: secrets, postgres, redis, minio, its one-shot bucket creation, web, worker", () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      "bucket",
      "minio",
      "postgres",
      "redis",
      "secrets",
      "web",
      "worker",
    ]);
    expect(compose.services.postgres?.image).toMatch(/^postgres:/);
    expect(compose.services.redis?.image).toMatch(/^redis:/);
    expect(compose.services.minio?.image).toMatch(/^minio\/minio/);
    expect(compose.services.bucket?.image).toMatch(/^minio\/mc/);
  });

  it("builds web and worker from the repository's Dockerfile", () => {
    expect(compose.services.web?.build).toBe(".");
    expect(compose.services.worker?.build).toBe(".");
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(/RUN npm ci .*&& npm run build/);
    const cmd = /^CMD (.+)$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? "[]")).toEqual(WEB_COMMAND.split(" "));
    expect(BUILD_COMMAND).toBe("npm run build");
  });

  it("starts the same commands as npm start: migrate, then the web or worker script", () => {
    expect(commandOf(compose.services.web!)).toContain(
      `. ${SECRETS_DIR}/lastword.env && ${MIGRATE_COMMAND} && ${WEB_COMMAND}`,
    );
    expect(commandOf(compose.services.worker!)).toContain(`${MIGRATE_COMMAND} && ${WORKER_COMMAND}`);
    const start = read("scripts/start.ts");
    expect(start).toMatch(/run\("worker", WORKER_COMMAND/);
    expect(start).toMatch(/run\("web", WEB_COMMAND/);
    expect(start).toMatch(/await migrate\(/);
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    expect(scripts["start:web"]).toBe("npm run start -w @lastword/web");
    expect(scripts["start:worker"]).toBe("npm run start -w @lastword/worker");
    expect(scripts["db:migrate"]).toContain("migrate-cli.ts");
  });

  it("delivers SIGTERM to the servers through the shell and npm (init signalling the process group)", () => {
    for (const name of ["web", "worker"] as const) {
      const service = compose.services[name]!;
      expect(service.init, name).toBe(true);
      expect(service.environment?.TINI_KILL_PROCESS_GROUP, name).toBe("1");
    }
  });

  it("points both processes at the compose Postgres and Redis with one shared internal secret", () => {
    const web = compose.services.web!.environment!;
    const worker = compose.services.worker!.environment!;
    expect(web.REDIS_URL).toBe("redis://redis:6379");
    expect(worker.REDIS_URL).toBe(web.REDIS_URL);
    // Both source the one generated file: the same Postgres URL and internal secret.
    for (const name of ["web", "worker"] as const) {
      expect(commandOf(compose.services[name]!), name).toContain(`. ${SECRETS_DIR}/lastword.env &&`);
      expect(compose.services[name]!.volumes, name).toContain(`secrets:${SECRETS_DIR}:ro`);
    }
    const generated = generatedEnv();
    expect(generated.DATABASE_URL).toBe(
      `postgresql://postgres:${generated.POSTGRES_PASSWORD}@postgres:5432/lastword`,
    );
  });

  it("publishes only the console and the Kafka listeners; Postgres, Redis and MinIO stay on the compose network", () => {
    const published = Object.entries(compose.services)
      .filter(([, service]) => service.ports !== undefined)
      .map(([name, service]) => [name, service.ports]);
    expect(published).toEqual([
      ["web", ["3000:3000"]],
      ["worker", ["9092-9099:9092"]],
    ]);
  });

  it("contains no usable secret: no literal password, secret or credential URL anywhere", () => {
    const text = read("docker-compose.yml");
    // The defaults it used to ship (public, so usable by anyone against a stack that kept them).
    for (const known of ["change-me", "POSTGRES_PASSWORD: postgres", "postgres:postgres@"]) {
      expect(text).not.toContain(known);
    }
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        // Only *_FILE pointers to the generated secrets may name a password or secret.
        if (/PASSWORD|SECRET|TOKEN/.test(key))
          expect(`${name} ${key}=${value}`).toMatch(/_FILE=\/run\/lastword-secrets\//);
        expect(String(value), `${name} ${key}`).not.toMatch(/:\/\/[^/@\s]*:[^/@\s]+@/);
      }
      // Commands pass credentials only as shell variables read from the generated file.
      expect(commandOf(service), name).not.toMatch(/mc alias set \S+ \S+ (?!"\$)/);
    }
  });

  it("generates each secret once, at random, and keeps it across restarts", () => {
    const names = ["postgres_password", "minio_password", "auth_secret", "internal_secret"];
    const secrets = names.map((name) => readFileSync(join(secretsDir, name), "utf8"));
    for (const secret of secrets) expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(secrets).size).toBe(names.length);
    // A restart runs the script again: nothing changes (Postgres keeps the password it was initialised with).
    execFileSync("sh", ["-c", shellOf(compose.services.secrets!, secretsDir)]);
    expect(names.map((name) => readFileSync(join(secretsDir, name), "utf8"))).toEqual(secrets);
    // Another stack (another volume) gets other secrets.
    const other = mkdtempSync(join(tmpdir(), "lastword-compose-secrets-"));
    try {
      execFileSync("sh", ["-c", shellOf(compose.services.secrets!, other)]);
      expect(readFileSync(join(other, "auth_secret"), "utf8")).not.toBe(secrets[2]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("gives the web secrets its production checks accept, and Postgres its password from the volume", async () => {
    const { parseServerEnv } = await import("../apps/web/src/env");
    const env = parseServerEnv({ NODE_ENV: "production", ...generatedEnv() });
    expect(env.BETTER_AUTH_SECRET).toBe(readFileSync(join(secretsDir, "auth_secret"), "utf8"));
    const postgres = compose.services.postgres!;
    expect(postgres.environment?.POSTGRES_PASSWORD_FILE).toBe(`${SECRETS_DIR}/postgres_password`);
    expect(postgres.volumes).toContain(`secrets:${SECRETS_DIR}:ro`);
    expect(postgres.depends_on?.secrets).toEqual({ condition: "service_completed_successfully" });
  });
});

/**
 * The worker's command up to the migration, run by a real shell on this machine as the container
 * runs it (compose turns `$$` into `$`), printing the environment the worker would start with.
 */
function workerStartEnv(extra: Record<string, string> = {}): Record<string, string> {
  const command = shellOf(compose.services.worker!, secretsDir);
  const prefix = command.slice(0, command.indexOf(MIGRATE_COMMAND));
  // The container's environment only (what the image runs with: NODE_ENV=production, Dockerfile).
  return printedEnv(`${prefix} env -0`, {
    NODE_ENV: "production",
    ...compose.services.worker!.environment,
    ...extra,
  });
}

describe("docker-compose.yml worker environment", () => {
  const ownAddress = execFileSync("sh", ["-c", "hostname -i | cut -d' ' -f1"], { encoding: "utf8" }).trim();

  it("is accepted by the worker and advertises the replica's own address, not the 0.0.0.0 bind address", async () => {
    const { readWorkerEnv } = await import("../apps/worker/src/env");
    const env = readWorkerEnv({ ...workerStartEnv(), NODE_ENV: "production" });
    expect(env.WORKER_DATAPLANE_HOST).toBe("0.0.0.0");
    expect(ownAddress).not.toBe("");
    expect(env.WORKER_ADVERTISED_HOST).toBe(ownAddress);
    expect(env.WORKER_DATAPLANE_PORT).toBe(7100);
  });

  it("advertises the replica's own address to Kafka clients too, unless WORKER_KAFKA_ADVERTISED_HOST is set", async () => {
    const { readWorkerEnv } = await import("../apps/worker/src/env");
    const worker = compose.services.worker!;
    const env = readWorkerEnv({ ...workerStartEnv(), NODE_ENV: "production" });
    expect([env.WORKER_KAFKA_HOST, env.WORKER_KAFKA_PORT]).toEqual(["0.0.0.0", 9092]);
    expect(env.WORKER_KAFKA_ADVERTISED_HOST).toBe(ownAddress);
    const overridden = readWorkerEnv({
      ...workerStartEnv({ WORKER_KAFKA_ADVERTISED_HOST: "localhost" }),
      NODE_ENV: "production",
    });
    expect(overridden.WORKER_KAFKA_ADVERTISED_HOST).toBe("localhost");
    expect(overridden.WORKER_ADVERTISED_HOST).toBe(ownAddress);
    // Off loopback without TLS the listener refuses to start unless plaintext is asked for.
    expect(env.WORKER_KAFKA_ALLOW_PLAINTEXT).toBe(true);
    // Scaled replicas each take one host port of the range.
    expect(worker.ports).toContain("9092-9099:9092");
  });

  it("scales: each replica has its own data directory (an anonymous volume) and no fixed worker id", () => {
    const worker = compose.services.worker!;
    expect(worker.volumes).toEqual([worker.environment!.LASTWORD_DATA_DIR, `secrets:${SECRETS_DIR}:ro`]);
    expect(worker.environment!.WORKER_ID).toBeUndefined();
  });

  it("points web and worker at the MinIO bucket the one-shot service creates, with its credentials", () => {
    const { minio, bucket, web, worker } = compose.services;
    for (const service of [web!, worker!]) {
      expect(service.environment!.LASTWORD_OBJECT_STORE).toBe(
        "s3://lastword?region=us-east-1&endpoint=http://minio:9000&forcePathStyle=true",
      );
      expect(service.depends_on?.bucket).toEqual({ condition: "service_completed_successfully" });
    }
    // The worker's start (its command, with the generated file) holds MinIO's own credentials.
    const generated = generatedEnv();
    const started = workerStartEnv();
    expect(started.AWS_ACCESS_KEY_ID).toBe(generated.MINIO_ROOT_USER);
    expect(started.AWS_SECRET_ACCESS_KEY).toBe(generated.MINIO_ROOT_PASSWORD);
    expect(started.AWS_SECRET_ACCESS_KEY).toBe(readFileSync(join(secretsDir, "minio_password"), "utf8"));
    // MinIO and the bucket step read the same file; the bucket step logs in with those variables.
    expect(commandOf(minio!)).toMatch(
      new RegExp(`^\\. ${SECRETS_DIR}/lastword.env && exec minio server /data`),
    );
    const creation = shellOf(bucket!, secretsDir);
    expect(creation).toContain(`. ${secretsDir}/lastword.env &&`);
    expect(creation).toContain(
      'mc alias set local http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD"',
    );
    expect(creation).toContain("mc mb --ignore-existing local/lastword");
    expect(bucket!.depends_on?.minio).toEqual({ condition: "service_healthy" });
  });

  it("gives the worker an S3 location its parser accepts", async () => {
    const { parseObjectStoreLocation } = await import("@lastword/object-store");
    const location = parseObjectStoreLocation(compose.services.worker!.environment!.LASTWORD_OBJECT_STORE!);
    expect(location).toMatchObject({
      kind: "s3",
      bucket: "lastword",
      endpoint: "http://minio:9000",
      forcePathStyle: true,
    });
  });
});
