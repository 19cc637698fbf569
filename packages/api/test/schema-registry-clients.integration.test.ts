import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_REGISTRY_BASE_PATH } from "../src/index";
import { rest, serveOverHttp, trpc } from "./api-harness";
import { createTopic, issueKey, useTenantWorld, worldKafka } from "./tenant-world";

const run = promisify(execFile);
const h = useTenantWorld("sr_clients");
let http: { url: string; close(): Promise<void> };
let registryUrl: string;

beforeAll(async () => {
  http = await serveOverHttp((request) => h.server.handleSchemaRegistry(request));
  registryUrl = `${http.url}${SCHEMA_REGISTRY_BASE_PATH}`;
});
afterAll(() => http?.close());

const userV1 = { type: "record", name: "User", namespace: "acme", fields: [{ name: "id", type: "string" }] };
const userV2 = { ...userV1, fields: [...userV1.fields, { name: "age", type: "int", default: 0 }] };
const userBreaking = { ...userV1, fields: [{ name: "id", type: "long" }] };

function kafkajsRegistry(): SchemaRegistry {
  return new SchemaRegistry({ host: registryUrl, auth: { username: h.keyId, password: h.key } }, undefined);
}

describe("@kafkajs/confluent-schema-registry against the registry", () => {
  it("registers, encodes and decodes Avro, Protobuf and JSON Schema; ids are stable", async () => {
    const registry = kafkajsRegistry();
    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(userV1) },
      { subject: "users-value" },
    );
    const again = await kafkajsRegistry().register(
      { type: SchemaType.AVRO, schema: JSON.stringify(userV1) },
      { subject: "users-value" },
    );
    expect(again.id).toBe(id);
    const encoded = await registry.encode(id, { id: "u-1" });
    expect(encoded[0]).toBe(0);
    expect(encoded.readUInt32BE(1)).toBe(id);
    // A fresh client knows nothing cached: decode fetches /schemas/ids/{id}.
    expect(await kafkajsRegistry().decode(encoded)).toEqual({ id: "u-1" });

    const proto = 'syntax = "proto3";\npackage acme;\nmessage Order { string id = 1; int64 cents = 2; }\n';
    const order = await registry.register(
      { type: SchemaType.PROTOBUF, schema: proto },
      { subject: "orders-value" },
    );
    const orderBytes = await registry.encode(order.id, { id: "o-1", cents: 250 });
    expect(await kafkajsRegistry().decode(orderBytes)).toMatchObject({ id: "o-1" });

    const jsonSchema = { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] };
    const item = await registry.register(
      { type: SchemaType.JSON, schema: JSON.stringify(jsonSchema) },
      { subject: "items-value" },
    );
    expect(await kafkajsRegistry().decode(await registry.encode(item.id, { sku: "A1" }))).toEqual({
      sku: "A1",
    });
    expect(new Set([id, order.id, item.id]).size).toBe(3);
  });

  it("a compatible change gets the next version; an incompatible one is refused with 409 and why", async () => {
    const registry = kafkajsRegistry();
    const v2 = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(userV2) },
      { subject: "users-value" },
    );
    expect(await registry.getLatestSchemaId("users-value")).toBe(v2.id);
    const error = await registry
      .register({ type: SchemaType.AVRO, schema: JSON.stringify(userBreaking) }, { subject: "users-value" })
      .then(
        () => null,
        (e: unknown) => e as { status?: number; message: string },
      );
    expect(error?.status).toBe(409);
    expect(error?.message).toMatch(/incompatible with an earlier schema for subject "users-value"/);
    expect(error?.message).toMatch(/TYPE_MISMATCH/);
  });

  it("Avro encoded by the registry travels through Kafka and decodes on the other side", async () => {
    await createTopic(h, h.key, { name: "users", partitions: 1, configs: { "cleanup.policy": "compact" } });
    const registry = kafkajsRegistry();
    const id = await registry.getLatestSchemaId("users-value");
    const kafka = worldKafka(h, "sr-clients");
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: "users",
      messages: [{ key: "u-7", value: await registry.encode(id, { id: "u-7", age: 41 }) }],
    });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: "sr-clients" });
    await consumer.connect();
    await consumer.subscribe({ topic: "users", fromBeginning: true });
    const decoded = await new Promise<unknown>((resolve, reject) => {
      consumer
        .run({ eachMessage: async ({ message }) => resolve(await registry.decode(message.value!)) })
        .catch(reject);
    });
    await consumer.disconnect();
    expect(decoded).toEqual({ id: "u-7", age: 41 });

    // The REST read decodes on request, naming the schema (TopicNameStrategy: users-value).
    const path = "/topics/users/partitions/0/records?offset=0&decode=true";
    const read = await rest(h.server, { apiKey: h.key }, "GET", path);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect((read.body.records as unknown[])[0]).toMatchObject({
      key: { type: "string", data: "u-7" },
      value: { type: "json", data: { id: "u-7", age: 41 } },
      schemas: { value: { id, schemaType: "AVRO", subject: "users-value", version: 2 } },
    });
    const plain = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      "/topics/users/partitions/0/records?offset=0",
    );
    const undecoded = (plain.body.records as { value: { type: string } }[])[0]!;
    expect(undecoded.value.type).not.toBe("json");
    expect(undecoded).not.toHaveProperty("schemas");
    const recordsOnly = await issueKey(h, "records-only", ["records:read"]);
    expect((await rest(h.server, { apiKey: recordsOnly }, "GET", path)).status).toBe(403);

    // The console's search filters on decoded fields: a JSON path into the Avro record.
    const search = (jsonPath: { path: string; equals: string }, decode: boolean) =>
      trpc(h.server, { apiKey: h.key }, "query", "records.search", { topic: "users", jsonPath, decode });
    const found = await search({ path: "$.age", equals: "41" }, true);
    expect(found.body.result?.data).toMatchObject({
      records: [
        {
          key: { data: "u-7" },
          value: { type: "json", data: { id: "u-7", age: 41 } },
          schemas: { value: { id } },
        },
      ],
    });
    expect((await search({ path: "$.age", equals: "40" }, true)).body.result?.data).toMatchObject({
      records: [],
    });
    expect((await search({ path: "$.age", equals: "41" }, false)).body.result?.data).toMatchObject({
      records: [],
    });
  });
});

const PYTHON = `
import json, sys
from confluent_kafka.schema_registry import SchemaRegistryClient, Schema
from confluent_kafka.schema_registry.error import SchemaRegistryError
url, user, key = sys.argv[1:4]
client = SchemaRegistryClient({"url": url, "basic.auth.user.info": user + ":" + key})
out = {}
v1 = json.dumps({"type": "record", "name": "Payment", "fields": [{"name": "cents", "type": "long"}]})
v2 = json.dumps({"type": "record", "name": "Payment", "fields": [{"name": "cents", "type": "long"}, {"name": "note", "type": "string", "default": ""}]})
bad = json.dumps({"type": "record", "name": "Payment", "fields": [{"name": "cents", "type": "string"}]})
out["id1"] = client.register_schema("payments-value", Schema(v1, "AVRO"))
out["schema1"] = json.loads(client.get_schema(out["id1"]).schema_str)
out["lookup"] = client.lookup_schema("payments-value", Schema(v1, "AVRO")).version
client.set_compatibility("payments-value", "FULL")
out["compat_level"] = client.get_compatibility("payments-value")
out["v2_compatible"] = client.test_compatibility("payments-value", Schema(v2, "AVRO"))
out["bad_compatible"] = client.test_compatibility("payments-value", Schema(bad, "AVRO"))
out["id2"] = client.register_schema("payments-value", Schema(v2, "AVRO"))
latest = client.get_latest_version("payments-value")
out["latest"] = [latest.schema_id, latest.version]
out["versions"] = client.get_versions("payments-value")
try:
    client.register_schema("payments-value", Schema(bad, "AVRO"))
except SchemaRegistryError as e:
    out["refused"] = [e.http_status_code, e.error_code]
try:
    client.get_version("payments-value", 9)
except SchemaRegistryError as e:
    out["missing_version"] = [e.http_status_code, e.error_code]
out["deleted"] = client.delete_subject("payments-value")
out["subjects_after"] = "payments-value" in client.get_subjects()
print(json.dumps(out))
`;

describe("confluent_kafka's SchemaRegistryClient (librdkafka's Python client) against the registry", () => {
  it("registers, looks up, checks compatibility, is refused with 409, and deletes", async () => {
    const { stdout } = await run("/usr/bin/python3", ["-c", PYTHON, registryUrl, h.keyId, h.key]);
    const out = JSON.parse(stdout);
    expect(out.schema1).toEqual({
      type: "record",
      name: "Payment",
      fields: [{ name: "cents", type: "long" }],
    });
    expect(out.lookup).toBe(1);
    expect(out.compat_level).toBe("FULL");
    expect(out.v2_compatible).toBe(true);
    expect(out.bad_compatible).toBe(false);
    expect(out.id2).toBeGreaterThan(out.id1);
    expect(out.latest).toEqual([out.id2, 2]);
    expect(out.versions).toEqual([1, 2]);
    expect(out.refused).toEqual([409, 409]);
    expect(out.missing_version).toEqual([404, 40402]);
    expect(out.deleted).toEqual([1, 2]);
    expect(out.subjects_after).toBe(false);
  });
});
