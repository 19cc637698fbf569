import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  type Admin,
  Kafka,
  logLevel,
  ResourcePatternTypes,
} from "kafkajs";
import { beforeAll, describe, expect, it } from "vitest";
import { fetchBody, RawKafka } from "./kafka-client";
import { useControlPlaneWorld } from "./kafka-world";
import { eventually } from "./test-topics";

// Issue 28, point 11: a key limited to topics and groups by literal name or prefix, enforced the
// same on REST and Kafka; the Kafka ACL APIs (kafkajs's admin createAcls/describeAcls/deleteAcls)
// read and write the same rules as REST's PUT /api-keys/{id}/rules, for the caller's own tenant's
// keys only, validated and audited.

let tenantA: { organizationId: string; userId: string };
let adminA: { id: string; key: string };
let adminB: { id: string; key: string };
let limited: { id: string; key: string };

const world = useControlPlaneWorld({ name: "kafka-acls" }, "kafka-acls");

function rest(apiKey: string, method: string, path: string, body?: unknown) {
  return world.control.rest(apiKey, method, path, body);
}

function kafka(key: { id: string; key: string }): Kafka {
  return new Kafka({
    brokers: [world.bootstrap],
    sasl: { mechanism: "plain", username: key.id, password: key.key },
    clientId: "acls-test",
    logLevel: logLevel.NOTHING,
    retry: { retries: 3, initialRetryTime: 100 },
  });
}

async function withAdmin<T>(key: { id: string; key: string }, use: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka(key).admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

const readOrders = () => ({
  resourceType: AclResourceTypes.TOPIC,
  resourceName: "orders.",
  resourcePatternType: ResourcePatternTypes.PREFIXED,
  principal: `User:${limited.id}`,
  host: "*",
  operation: AclOperationTypes.READ,
  permissionType: AclPermissionTypes.ALLOW,
});
const readGroup = () => ({
  ...readOrders(),
  resourceType: AclResourceTypes.GROUP,
  resourceName: "orders-readers",
  resourcePatternType: ResourcePatternTypes.LITERAL,
});

/** The Kafka error code `limited` gets fetching `topic` on a fresh connection. */
async function fetchCode(topic: string): Promise<number> {
  const raw = await RawKafka.login(world.worker.kafka!, { id: limited.id, secret: limited.key });
  try {
    return (await raw.call(ApiKey.Fetch, 12, fetchBody(topic, 0, 0))).responses[0]!.partitions[0]!.errorCode;
  } finally {
    raw.close();
  }
}

beforeAll(async () => {
  tenantA = await world.control.server.provisionTenant({
    name: "Acls A",
    email: "a@acls.example",
    password: "acls-pass-a1",
  });
  const tenantB = await world.control.server.provisionTenant({
    name: "Acls B",
    email: "b@acls.example",
    password: "acls-pass-b1",
  });
  adminA = await world.control.server.createApiKey({ ...tenantA, name: "admin-a", scopes: ["admin"] });
  adminB = await world.control.server.createApiKey({ ...tenantB, name: "admin-b", scopes: ["admin"] });
  limited = await world.control.server.createApiKey({
    ...tenantA,
    name: "limited",
    scopes: ["topics:read", "records:read", "records:write", "groups:read"],
  });
  for (const name of ["orders.eu", "orders.us", "billing"]) {
    expect((await rest(adminA.key, "POST", "/topics", { name, partitions: 1, configs: {} })).status).toBe(
      201,
    );
  }
  await eventually("the partitions hosted", 20_000, async () =>
    world.worker.ownedPartitions().length === 3 ? true : undefined,
  );
  for (const topic of ["orders.eu", "billing"]) {
    const produced = await rest(adminA.key, "POST", `/topics/${topic}/records`, {
      records: [{ key: { type: "string", data: "k" }, value: { type: "string", data: `in ${topic}` } }],
    });
    expect(produced.status).toBe(200);
  }
});

describe("rules written with kafkajs's createAcls", () => {
  it("are read back by describeAcls and the REST key list, and refused when the model cannot hold them", async () => {
    await withAdmin(adminA, async (admin) => {
      await admin.createAcls({ acl: [readOrders(), readGroup()] });
      const described = await admin.describeAcls({
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      });
      expect(described.resources).toEqual(
        expect.arrayContaining([
          {
            resourceType: AclResourceTypes.TOPIC,
            resourceName: "orders.",
            resourcePatternType: ResourcePatternTypes.PREFIXED,
            acls: [
              {
                principal: `User:${limited.id}`,
                host: "*",
                operation: AclOperationTypes.READ,
                permissionType: AclPermissionTypes.ALLOW,
              },
            ],
          },
          expect.objectContaining({ resourceType: AclResourceTypes.GROUP, resourceName: "orders-readers" }),
        ]),
      );
      expect(described.resources).toHaveLength(2);
      // What the model cannot hold is refused, naming why, and changes nothing.
      for (const refused of [
        { ...readOrders(), permissionType: AclPermissionTypes.DENY },
        { ...readOrders(), operation: AclOperationTypes.DESCRIBE },
        { ...readOrders(), host: "10.0.0.1" },
        { ...readOrders(), principal: `User:${adminB.id}` },
        { ...readOrders(), resourceName: "bad name!" },
      ]) {
        await expect(admin.createAcls({ acl: [refused] }), JSON.stringify(refused)).rejects.toThrow();
      }
    });
    expect(await world.h.db.prisma.apiKeyRule.count()).toBe(2);
    const listed = await rest(adminA.key, "GET", "/api-keys");
    const key = (listed.body.apiKeys as { id: string; rules: unknown[] }[]).find((k) => k.id === limited.id)!;
    expect(key.rules).toEqual(
      expect.arrayContaining([
        { resourceType: "topic", patternType: "prefixed", name: "orders.", operation: "read" },
        { resourceType: "group", patternType: "literal", name: "orders-readers", operation: "read" },
      ]),
    );
    const audit = await world.h.db.prisma.auditEvent.findMany({
      where: { organizationId: tenantA.organizationId, action: "apiKey.rules.changed", targetId: limited.id },
    });
    expect(audit).toHaveLength(2);
  });

  it("limit the key the same way on REST and Kafka", async () => {
    // REST: the rules' topics only, for reading only.
    await expect
      .poll(async () => (await rest(limited.key, "GET", "/topics/billing/partitions/0/records")).status, {
        timeout: 5_000,
      })
      .toBe(403);
    const refused = await rest(limited.key, "GET", "/topics/billing/partitions/0/records");
    expect(refused.body).toMatchObject({
      code: "INSUFFICIENT_SCOPE",
      resource: { type: "topic", name: "billing", operation: "read" },
    });
    expect((await rest(limited.key, "GET", "/topics/orders.eu/partitions/0/records")).status).toBe(200);
    const write = await rest(limited.key, "POST", "/topics/orders.eu/records", {
      records: [{ key: { type: "string", data: "k" }, value: { type: "string", data: "v" } }],
    });
    expect(write.status).toBe(403);
    const topics = await rest(limited.key, "GET", "/topics");
    expect((topics.body.topics as { name: string }[]).map((t) => t.name).sort()).toEqual([
      "orders.eu",
      "orders.us",
    ]);

    // Kafka: the same.
    await expect
      .poll(() => fetchCode("billing"), { timeout: 10_000 })
      .toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    expect(await fetchCode("orders.eu")).toBe(0);
    await withAdmin(limited, async (admin) => {
      expect((await admin.listTopics()).sort()).toEqual(["orders.eu", "orders.us"]);
    });
    const producer = kafka(limited).producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
    await producer.connect();
    await expect(producer.send({ topic: "orders.eu", messages: [{ key: "k", value: "v" }] })).rejects.toThrow(
      /authoriz/i,
    );
    await producer.disconnect();
    const consumer = kafka(limited).consumer({ groupId: "orders-readers", maxWaitTimeInMs: 100 });
    const seen: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: "orders.eu", fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value?.toString() ?? "");
        },
      });
      await expect.poll(() => seen, { timeout: 15_000 }).toEqual(["in orders.eu"]);
    } finally {
      await consumer.disconnect();
    }
    // A group its rules do not name: refused at FindCoordinator, as Kafka's Group DESCRIBE.
    const raw = await RawKafka.login(world.worker.kafka!, { id: limited.id, secret: limited.key });
    try {
      const found = await raw.call(ApiKey.FindCoordinator, 3, { key: "another-group", keyType: 0 });
      expect(found.errorCode).toBe(ErrorCode.GROUP_AUTHORIZATION_FAILED);
      expect(found.errorMessage).toContain('group rules do not allow read on the group "another-group"');
    } finally {
      raw.close();
    }
  });

  it("another tenant neither sees nor deletes them; deleteAcls lifts the limit", async () => {
    await withAdmin(adminB, async (admin) => {
      const seen = await admin.describeAcls({
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      });
      expect(seen.resources).toEqual([]);
      const deleted = await admin.deleteAcls({
        filters: [
          {
            resourceType: AclResourceTypes.ANY,
            resourcePatternType: ResourcePatternTypes.ANY,
            principal: `User:${limited.id}`,
            operation: AclOperationTypes.ANY,
            permissionType: AclPermissionTypes.ANY,
          },
        ],
      });
      expect(deleted.filterResponses[0]!.matchingAcls).toEqual([]);
    });
    expect(await world.h.db.prisma.apiKeyRule.count()).toBe(2);

    await withAdmin(adminA, async (admin) => {
      const deleted = await admin.deleteAcls({
        filters: [
          {
            resourceType: AclResourceTypes.ANY,
            resourcePatternType: ResourcePatternTypes.MATCH,
            resourceName: "orders.eu",
            principal: `User:${limited.id}`,
            operation: AclOperationTypes.ANY,
            permissionType: AclPermissionTypes.ANY,
          },
        ],
      });
      // MATCH on orders.eu: the prefix rule that covers it, not the group's rule.
      expect(deleted.filterResponses[0]!.matchingAcls).toEqual([
        expect.objectContaining({
          resourceName: "orders.",
          resourcePatternType: ResourcePatternTypes.PREFIXED,
        }),
      ]);
    });
    await expect.poll(() => fetchCode("billing"), { timeout: 10_000 }).toBe(0);
    await expect
      .poll(async () => (await rest(limited.key, "GET", "/topics/billing/partitions/0/records")).status, {
        timeout: 5_000,
      })
      .toBe(200);
  });
});

describe("rules written over REST", () => {
  it("are validated, need the key's scopes, and a rule-limited key cannot change rules", async () => {
    const invalid = await rest(adminA.key, "PUT", `/api-keys/${limited.id}/rules`, {
      rules: [{ resourceType: "cluster", patternType: "literal", name: "x", operation: "read" }],
    });
    expect(invalid.status).toBe(400);
    const narrow = await rest(adminA.key, "PUT", `/api-keys/${limited.id}/rules`, {
      rules: [{ resourceType: "topic", patternType: "literal", name: "billing", operation: "admin" }],
    });
    expect(narrow.status).toBe(200);
    const keysWriter = await world.control.server.createApiKey({
      ...tenantA,
      name: "keys",
      scopes: ["keys:write", "keys:read"],
    });
    const beyond = await rest(keysWriter.key, "PUT", `/api-keys/${limited.id}/rules`, { rules: [] });
    expect(beyond.status).toBe(403);
    const ruled = await rest(adminA.key, "POST", "/api-keys", {
      name: "ruled-admin",
      scopes: ["admin"],
      rules: [{ resourceType: "topic", patternType: "prefixed", name: "orders.", operation: "admin" }],
    });
    expect(ruled.status).toBe(201);
    const ruledKey = ruled.body.key as string;
    const lift = await rest(ruledKey, "PUT", `/api-keys/${limited.id}/rules`, { rules: [] });
    expect(lift.status).toBe(403);
    // A key it mints gets its rules, and may not ask for wider ones.
    const minted = await rest(ruledKey, "POST", "/api-keys", { name: "child", scopes: ["topics:read"] });
    expect(minted.status).toBe(201);
    expect(minted.body.rules).toEqual([
      { resourceType: "topic", patternType: "prefixed", name: "orders.", operation: "admin" },
    ]);
    const wider = await rest(ruledKey, "POST", "/api-keys", {
      name: "wider",
      scopes: ["topics:read"],
      rules: [{ resourceType: "topic", patternType: "literal", name: "billing", operation: "read" }],
    });
    expect(wider.status).toBe(403);
  });
});
