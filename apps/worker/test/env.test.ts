import { DEV_INTERNAL_SECRET } from "@lastword/dataplane/dev-secret";
import { describe, expect, it } from "vitest";
import { readWorkerEnv } from "../src/env";

describe("worker env", () => {
  it("fills in the documented local defaults", () => {
    const env = readWorkerEnv({});
    expect(env.DATABASE_URL).toBe("postgresql://postgres@127.0.0.1:5432/lastword");
    expect(env.WORKER_DATAPLANE_HOST).toBe("127.0.0.1");
    expect(env.WORKER_DATAPLANE_PORT).toBe(0);
    expect(env.WORKER_LEASE_TTL_MS).toBe(10_000);
    expect(env.LASTWORD_DATA_DIR).toMatch(/\.lastword\/data$/);
    expect(env.WORKER_ID).toMatch(/^worker-[0-9a-f]{10}$/);
    expect(env.WORKER_SCHEDULING).toBe("on");
  });

  it("requires the internal secret in production, with a sentence naming it", () => {
    expect(() => readWorkerEnv({ NODE_ENV: "production" })).toThrow(
      /LASTWORD_INTERNAL_SECRET is invalid: .*required/,
    );
    expect(
      readWorkerEnv({ NODE_ENV: "production", LASTWORD_INTERNAL_SECRET: "s" }).LASTWORD_INTERNAL_SECRET,
    ).toBe("s");
    expect(() =>
      readWorkerEnv({ NODE_ENV: "production", LASTWORD_INTERNAL_SECRET: DEV_INTERNAL_SECRET }),
    ).toThrow(/LASTWORD_INTERNAL_SECRET is invalid: must not be the development default/);
  });

  it("takes the test-only fault point outside production and refuses it in production", () => {
    expect(readWorkerEnv({ LASTWORD_FAULT_POINT: "after-append" }).LASTWORD_FAULT_POINT).toBe("after-append");
    expect(readWorkerEnv({}).LASTWORD_FAULT_POINT).toBeUndefined();
    expect(() => readWorkerEnv({ LASTWORD_FAULT_POINT: "anywhere" })).toThrow(/LASTWORD_FAULT_POINT/);
    // Dropping a Kafka answer is a Kafka test fault (WORKER_KAFKA_TEST_FAULTS), not a fault point.
    expect(() => readWorkerEnv({ LASTWORD_FAULT_POINT: "drop-after-append" })).toThrow(
      /LASTWORD_FAULT_POINT/,
    );
    expect(() =>
      readWorkerEnv({
        NODE_ENV: "production",
        LASTWORD_INTERNAL_SECRET: "s",
        LASTWORD_FAULT_POINT: "after-append",
      }),
    ).toThrow(/LASTWORD_FAULT_POINT/);
  });

  it("reads Kafka test faults as a JSON list of rules, refuses malformed ones, and refuses them in production", () => {
    expect(readWorkerEnv({}).WORKER_KAFKA_TEST_FAULTS).toBeUndefined();
    const rules =
      '[{"api":"Produce","errorCode":6},{"api":"Produce","drop":"after-append"},{"api":"Fetch","throttleTimeMs":500}]';
    expect(readWorkerEnv({ WORKER_KAFKA_TEST_FAULTS: rules }).WORKER_KAFKA_TEST_FAULTS).toEqual([
      { api: "Produce", errorCode: 6 },
      { api: "Produce", drop: "after-append" },
      { api: "Fetch", throttleTimeMs: 500 },
    ]);
    expect(() =>
      readWorkerEnv({ WORKER_KAFKA_TEST_FAULTS: '[{"api":"Produce","drop":"before-append"}]' }),
    ).toThrow(/WORKER_KAFKA_TEST_FAULTS/);
    expect(() =>
      readWorkerEnv({ WORKER_KAFKA_TEST_FAULTS: '[{"api":"Produce","errorCode":6,"drop":"after-append"}]' }),
    ).toThrow(/WORKER_KAFKA_TEST_FAULTS/);
    expect(() => readWorkerEnv({ WORKER_KAFKA_TEST_FAULTS: "[{" })).toThrow(/WORKER_KAFKA_TEST_FAULTS.*JSON/);
    expect(() => readWorkerEnv({ WORKER_KAFKA_TEST_FAULTS: '[{"api":"Metadata","errorCode":1}]' })).toThrow(
      /WORKER_KAFKA_TEST_FAULTS/,
    );
    expect(() =>
      readWorkerEnv({
        NODE_ENV: "production",
        LASTWORD_INTERNAL_SECRET: "s",
        WORKER_KAFKA_TEST_FAULTS: "[]",
      }),
    ).toThrow(/WORKER_KAFKA_TEST_FAULTS is invalid: Kafka test faults are for tests/);
  });

  it("rejects a port out of range and a worker id that could not be a path or label", () => {
    expect(() => readWorkerEnv({ WORKER_DATAPLANE_PORT: "70000" })).toThrow(/WORKER_DATAPLANE_PORT/);
    expect(() => readWorkerEnv({ WORKER_ID: "../etc" })).toThrow(/WORKER_ID/);
  });

  it("reads the Kafka listener's settings: plaintext off the loopback only when asked, TLS as a cert and key pair", () => {
    const defaults = readWorkerEnv({});
    expect([defaults.WORKER_KAFKA_HOST, defaults.WORKER_KAFKA_PORT]).toEqual(["127.0.0.1", 0]);
    expect(defaults.WORKER_KAFKA_ALLOW_PLAINTEXT).toBe(false);
    expect(readWorkerEnv({ WORKER_KAFKA_ALLOW_PLAINTEXT: "true" }).WORKER_KAFKA_ALLOW_PLAINTEXT).toBe(true);
    expect(() => readWorkerEnv({ WORKER_KAFKA_ALLOW_PLAINTEXT: "yes" })).toThrow(
      /WORKER_KAFKA_ALLOW_PLAINTEXT/,
    );
    expect(() => readWorkerEnv({ WORKER_KAFKA_TLS_CERT_FILE: "/c.pem" })).toThrow(
      /WORKER_KAFKA_TLS_CERT_FILE is invalid: set both/,
    );
    const tls = readWorkerEnv({ WORKER_KAFKA_TLS_CERT_FILE: "/c.pem", WORKER_KAFKA_TLS_KEY_FILE: "/k.pem" });
    expect([tls.WORKER_KAFKA_TLS_CERT_FILE, tls.WORKER_KAFKA_TLS_KEY_FILE]).toEqual(["/c.pem", "/k.pem"]);
  });
});
