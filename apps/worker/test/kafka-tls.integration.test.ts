import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestDatabase } from "@lastword/db/testing";
import { Kafka, logLevel, Partitioners } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaKey, createNamedTopic, kcatProperties, kcatSasl, run } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";
import type { WorkerProcess } from "./worker-process";

// SASL_SSL: a worker process given a certificate and key speaks TLS, so it may
// listen on every interface; without them it refuses any address but loopback unless plaintext
// is asked for. The certificate is a fresh self-signed one; clients verify it as their CA.
const ORG = "org_kafka_tls";
let harness: WorkerHarness;
let db: TestDatabase;
let certDir: string;
let certFile: string;
let key: { id: string; secret: string };
let worker: WorkerProcess;

const spawnWorker = (id: string, env: Record<string, string>) =>
  harness.spawnWorker(id, { leaseTtlMs: 10_000, env: { WORKER_SCHEDULING: "off", ...env } });

beforeAll(async () => {
  harness = await openWorkerHarness({ name: "kafka-tls" });
  db = harness.db;
  certDir = await mkdtemp(join(tmpdir(), "lastword-kafka-tls-"));
  certFile = join(certDir, "cert.pem");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    join(certDir, "key.pem"),
    "-out",
    certFile,
    "-days",
    "1",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ]);
  await createNamedTopic(db.prisma, ORG, "secure", 2);
  key = await createKafkaKey(db.prisma, ORG, ["topics:read", "records:read", "records:write"]);
  // Every interface: TLS is what makes that allowed. Clients are told the loopback address.
  worker = await spawnWorker("tls-w1", {
    WORKER_KAFKA_HOST: "0.0.0.0",
    WORKER_KAFKA_PORT: "0",
    WORKER_KAFKA_ADVERTISED_HOST: "127.0.0.1",
    WORKER_KAFKA_TLS_CERT_FILE: certFile,
    WORKER_KAFKA_TLS_KEY_FILE: join(certDir, "key.pem"),
  });
  await eventually("partitions hosted", 20_000, async () => {
    const rows = await db.prisma.partition.findMany({ where: { ownerWorkerId: "tls-w1" } });
    return rows.length === 2 ? true : undefined;
  });
});

afterAll(async () => {
  await harness?.close();
  if (certDir) await rm(certDir, { recursive: true, force: true });
});

describe("SASL_SSL", () => {
  it("kafkajs logs in over TLS (the certificate as CA) with SCRAM-SHA-512, lists the tenant's topics and produces", async () => {
    expect(worker.kafka.host).toBe("127.0.0.1");
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${worker.kafka.port}`],
      clientId: "kafka-tls-test",
      ssl: { ca: [readFileSync(certFile, "utf8")] },
      sasl: { mechanism: "scram-sha-512", username: key.id, password: key.secret },
      connectionTimeout: 3_000,
      retry: { retries: 5, initialRetryTime: 100 },
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    expect(await admin.listTopics()).toEqual(["secure"]);
    await admin.disconnect();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const sent = await producer.send({
      topic: "secure",
      acks: -1,
      messages: [
        { key: "a", value: "over-tls-1" },
        { key: "b", value: "over-tls-2" },
      ],
    });
    expect(sent.every((r) => r.errorCode === 0)).toBe(true);
    await producer.disconnect();
  });

  it("kcat (librdkafka) reads them back over SASL_SSL, verifying the certificate; plaintext SASL to the TLS port fails", async () => {
    const bootstrap = `127.0.0.1:${worker.kafka.port}`;
    const consume = ["-C", "-t", "secure", "-e", "-q"];
    const { stdout } = await run(
      "kcat",
      [
        ...kcatSasl(bootstrap, key, { mechanism: "SCRAM-SHA-512", securityProtocol: "SASL_SSL" }),
        ...kcatProperties({ "ssl.ca.location": certFile }),
        ...consume,
        "-f",
        "%k=%s\\n",
      ],
      { timeout: 30_000 },
    );
    expect(stdout.split("\n").filter(Boolean).sort()).toEqual(["a=over-tls-1", "b=over-tls-2"]);
    await expect(
      run("kcat", [...kcatSasl(bootstrap, key, { mechanism: "SCRAM-SHA-512" }), ...consume, "-m", "3"], {
        timeout: 30_000,
      }),
    ).rejects.toThrow();
  });

  it("without TLS a worker refuses a non-loopback Kafka address, unless WORKER_KAFKA_ALLOW_PLAINTEXT=true", async () => {
    await expect(
      spawnWorker("plain-refused", { WORKER_KAFKA_HOST: "0.0.0.0", WORKER_KAFKA_PORT: "0" }),
    ).rejects.toThrow(
      /exited with 1 before it was ready: The worker could not start: the Kafka listener would accept plaintext SASL on 0\.0\.0\.0/,
    );
    const allowed = await spawnWorker("plain-allowed", {
      WORKER_KAFKA_HOST: "0.0.0.0",
      WORKER_KAFKA_PORT: "0",
      WORKER_KAFKA_ALLOW_PLAINTEXT: "true",
    });
    expect(allowed.kafka.port).toBeGreaterThan(0);
    const exited = new Promise((resolve) => allowed.child.once("exit", resolve));
    allowed.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
