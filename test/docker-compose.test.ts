import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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

describe("docker-compose.yml", () => {
  it("has exactly the six services: postgres, redis, minio, its one-shot bucket creation, web, worker", () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      "bucket",
      "minio",
      "postgres",
      "redis",
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
    expect(commandOf(compose.services.web!)).toContain(`${MIGRATE_COMMAND} && ${WEB_COMMAND}`);
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
    expect(web.DATABASE_URL).toContain("@postgres:5432/");
    expect(web.REDIS_URL).toBe("redis://redis:6379");
    expect(worker.DATABASE_URL).toBe(web.DATABASE_URL);
    expect(worker.LASTWORD_INTERNAL_SECRET).toBe(web.LASTWORD_INTERNAL_SECRET);
  });
});

/**
 * The worker's command up to the migration, run by a real shell on this machine as the container
 * runs it (compose turns `$$` into `$`), printing the environment the worker would start with.
 */
function workerStartEnv(extra: Record<string, string> = {}): Record<string, string> {
  const command = commandOf(compose.services.worker!)
    .replace(/^sh -c /, "")
    .replaceAll("$$", "$");
  const prefix = command.slice(0, command.indexOf(MIGRATE_COMMAND));
  const printed = execFileSync("sh", ["-c", `${prefix} env -0`], {
    // The container's environment only (what the image runs with: NODE_ENV=production, Dockerfile).
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      ...compose.services.worker!.environment,
      ...extra,
    },
    encoding: "utf8",
  });
  return Object.fromEntries(
    printed
      .split("\0")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
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
    expect(worker.volumes).toEqual([worker.environment!.LASTWORD_DATA_DIR]);
    expect(worker.environment!.WORKER_ID).toBeUndefined();
  });

  it("points web and worker at the MinIO bucket the one-shot service creates, with its credentials", () => {
    const { minio, bucket, web, worker } = compose.services;
    for (const service of [web!, worker!]) {
      expect(service.environment!.LASTWORD_OBJECT_STORE).toBe(
        "s3://lastword?region=us-east-1&endpoint=http://minio:9000&forcePathStyle=true",
      );
      expect(service.environment!.AWS_ACCESS_KEY_ID).toBe(minio!.environment!.MINIO_ROOT_USER);
      expect(service.environment!.AWS_SECRET_ACCESS_KEY).toBe(minio!.environment!.MINIO_ROOT_PASSWORD);
      expect(service.depends_on?.bucket).toEqual({ condition: "service_completed_successfully" });
    }
    const creation = commandOf(bucket!);
    expect(creation).toContain(
      `mc alias set local http://minio:9000 ${minio!.environment!.MINIO_ROOT_USER} ${minio!.environment!.MINIO_ROOT_PASSWORD}`,
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
