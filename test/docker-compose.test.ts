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
}
const compose = parse(read("docker-compose.yml"), { merge: true }) as { services: Record<string, Service> };
const commandOf = (service: Service) =>
  Array.isArray(service.command) ? service.command.join(" ") : (service.command ?? "");

describe("docker-compose.yml", () => {
  it("has exactly the services: postgres, redis, minio and its bucket, web, worker", () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      "minio",
      "minio-bucket",
      "postgres",
      "redis",
      "web",
      "worker",
    ]);
    expect(compose.services.minio?.image).toMatch(/^minio\/minio/);
    expect(compose.services.postgres?.image).toMatch(/^postgres:/);
    expect(compose.services.redis?.image).toMatch(/^redis:/);
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

describe("docker-compose.yml worker environment", () => {
  it("is accepted by the worker and advertises the service name, not the 0.0.0.0 bind address", async () => {
    const { readWorkerEnv } = await import("../apps/worker/src/env");
    const env = readWorkerEnv({ ...compose.services.worker!.environment, NODE_ENV: "production" });
    expect(env.WORKER_DATAPLANE_HOST).toBe("0.0.0.0");
    expect(env.WORKER_ADVERTISED_HOST).toBe("worker");
    expect(env.WORKER_DATAPLANE_PORT).toBe(7100);
  });

  it("makes MinIO the partitions' durable home, with the credentials MinIO was started with", async () => {
    const { readWorkerEnv } = await import("../apps/worker/src/env");
    const { parseObjectStoreLocation } = await import("@lastword/object-store");
    const env = readWorkerEnv({ ...compose.services.worker!.environment, NODE_ENV: "production" });
    expect(parseObjectStoreLocation(env.LASTWORD_OBJECT_STORE!)).toMatchObject({
      kind: "s3",
      bucket: "lastword",
      endpoint: "http://minio:9000",
      forcePathStyle: true,
    });
    const minio = compose.services.minio!.environment!;
    expect([env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY]).toEqual([
      minio.MINIO_ROOT_USER,
      minio.MINIO_ROOT_PASSWORD,
    ]);
  });

  it("publishes the worker's Kafka listener on 9092 and advertises the address clients on the host reach", async () => {
    const { readWorkerEnv } = await import("../apps/worker/src/env");
    const worker = compose.services.worker!;
    const env = readWorkerEnv({ ...worker.environment, NODE_ENV: "production" });
    expect([env.WORKER_KAFKA_HOST, env.WORKER_KAFKA_PORT]).toEqual(["0.0.0.0", 9092]);
    expect(env.WORKER_KAFKA_ADVERTISED_HOST).toBe("localhost");
    // Off loopback without TLS the listener refuses to start unless plaintext is asked for.
    expect(env.WORKER_KAFKA_ALLOW_PLAINTEXT).toBe(true);
    expect(worker.ports).toContain("9092:9092");
  });
});
