import { eventually } from "@lastword/db/testing";
import { describe, expect, it } from "vitest";
import { encodeCursor } from "../src/services/cursor";
import { provisionTenantKey, rest, signUp, type TenantKey, trpc } from "./api-harness";
import { useTenantWorld } from "./tenant-world";

// Issue 28.8: a NUL character in an id or in free text reached Postgres (which cannot hold U+0000
// in text or jsonb) and answered 500. Every such input is refused as 400 INVALID_INPUT by the one
// id schema and the stored-text schema (services/stored-text.schema.ts), and changes nothing.
const h = useTenantWorld("nul_input", {
  scopes: ["admin"],
  topics: [{ name: "people", partitions: 1, configs: { "cleanup.policy": "compact" } }],
});
const NUL_ID = "abc\u0000def";
const NUL_PATH = "abc%00def";
const NOT_AN_ID = "is not an id";
const HOLDS_NUL = "U+0000";

async function auditCount(tenant: TenantKey): Promise<number> {
  return h.db.prisma.auditEvent.count({ where: { organizationId: tenant.organizationId } });
}

describe("NUL characters in input", () => {
  it("answer 400 INVALID_INPUT on every REST route that took them to Postgres", async () => {
    const tenant = await provisionTenantKey(h.server, "Nul Rest", ["admin"]);
    const made = await rest(h.server, { apiKey: tenant.key }, "POST", "/topics", {
      name: "nul-topic",
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
    });
    expect(made.status).toBe(201);
    const before = await auditCount(tenant);
    const cursor = encodeCursor("topics", ["a\u0000b"]);
    const key = [{ type: "string", data: "k" }];
    const calls: [string, string, unknown, string][] = [
      ["GET", `/erasure-requests/${NUL_PATH}`, undefined, NOT_AN_ID],
      ["GET", `/erasure-requests/${NUL_PATH}/evidence`, undefined, NOT_AN_ID],
      [
        "POST",
        `/erasure-requests/${NUL_PATH}/extensions`,
        { deadlineAt: "2030-01-01T00:00:00Z", reason: "more" },
        NOT_AN_ID,
      ],
      ["POST", `/erasure-requests/${NUL_PATH}/reverify`, {}, NOT_AN_ID],
      ["POST", "/erasure-requests", { keys: key, topics: ["nul-topic"], notes: "a\u0000b" }, HOLDS_NUL],
      ["POST", "/erasure-requests", { keys: key, topics: ["nul-topic"], requester: "a\u0000b" }, HOLDS_NUL],
      ["DELETE", `/api-keys/${NUL_PATH}`, undefined, NOT_AN_ID],
      ["PUT", `/api-keys/${NUL_PATH}/rules`, { rules: [] }, NOT_AN_ID],
      ["POST", "/api-keys", { name: "a\u0000b" }, HOLDS_NUL],
      ["GET", `/audit/events?actorId=${NUL_PATH}`, undefined, HOLDS_NUL],
      ["GET", `/audit/events?targetId=${NUL_PATH}`, undefined, HOLDS_NUL],
      ["GET", `/topics?cursor=${cursor}`, undefined, "cursor"],
      [
        "POST",
        "/consumer-groups/nul-group/offsets",
        { offsets: [{ topic: "nul-topic", partition: 0, offset: 0, metadata: "a\u0000b" }] },
        HOLDS_NUL,
      ],
    ];
    for (const [method, path, body, why] of calls) {
      const answer = await rest(h.server, { apiKey: tenant.key }, method, path, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.code).toBe("INVALID_INPUT");
      expect(JSON.stringify(answer.body), `${method} ${path}`).toContain(why);
    }
    expect(await auditCount(tenant), "nothing changed").toBe(before);
    expect(await h.db.prisma.erasureRequest.count({ where: { organizationId: tenant.organizationId } })).toBe(
      0,
    );
  });

  it("answer 400 on the tRPC procedures naming members, invitations and keys", async () => {
    const tenant = await provisionTenantKey(h.server, "Nul Trpc", ["admin"]);
    const before = await auditCount(tenant);
    const calls: [string, unknown][] = [
      ["members.remove", { memberId: NUL_ID }],
      ["members.changeRole", { memberId: NUL_ID, role: "viewer" }],
      ["members.revokeInvitation", { invitationId: NUL_ID }],
      ["apiKeys.revoke", { id: NUL_ID }],
      ["apiKeys.setRules", { id: NUL_ID, rules: [] }],
      ["erasure.extend", { id: NUL_ID, deadlineAt: "2030-01-01T00:00:00Z", reason: "more" }],
    ];
    for (const [path, input] of calls) {
      const answer = await trpc(h.server, { apiKey: tenant.key }, "mutation", path, input);
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.error?.data.code).toBe("INVALID_INPUT");
    }
    for (const [path, input] of [
      ["erasure.get", { id: NUL_ID }],
      ["erasure.evidence", { id: NUL_ID }],
    ] as const) {
      const answer = await trpc(h.server, { apiKey: tenant.key }, "query", path, input);
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(400);
    }
    // Answering an invitation is a signed-in person's act (a session, not a key).
    const person = await signUp(h.server, "nul-person@example.com");
    for (const path of ["invitations.accept", "invitations.decline"]) {
      const answer = await trpc(h.server, { cookie: person.cookie }, "mutation", path, {
        invitationId: NUL_ID,
      });
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(400);
    }
    expect(await auditCount(tenant)).toBe(before);
  });

  it("an id of another shape is refused as input, a well-formed unknown one is still 404", async () => {
    const tenant = await provisionTenantKey(h.server, "Nul Shape", ["admin"]);
    const odd = await rest(h.server, { apiKey: tenant.key }, "DELETE", "/api-keys/a%20b");
    expect(odd.status).toBe(400);
    expect(JSON.stringify(odd.body)).toContain("is not an id");
    const unknown = await rest(h.server, { apiKey: tenant.key }, "DELETE", "/api-keys/no_such-key1");
    expect(unknown.status).toBe(404);
  });

  it("an erasure request for a key holding NUL is filed, its tombstone audited as base64, its evidence exported", async () => {
    const nulKey = Buffer.from("user\u000042");
    const produced = await rest(h.server, { apiKey: h.key }, "POST", "/topics/people/records", {
      records: [
        { key: { type: "base64", data: nulKey.toString("base64") }, value: { type: "string", data: "pii" } },
      ],
    });
    expect(produced.status).toBe(200);
    const filed = await rest(h.server, { apiKey: h.key }, "POST", "/erasure-requests", {
      keys: [{ type: "string", data: "user\u000042" }],
      topics: ["people"],
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    // The worker's audit of the erasure tombstone: written (jsonb cannot hold U+0000), key as base64.
    const event = await eventually("the tombstone's audit event", 20_000, async () => {
      const row = await h.db.prisma.auditEvent.findFirst({
        where: { organizationId: h.organizationId, action: "tombstones.written" },
      });
      return row ?? undefined;
    });
    expect((event.data as { tombstones: { key: unknown }[] }).tombstones[0]!.key).toEqual({
      type: "base64",
      data: nulKey.toString("base64"),
    });
    const id = String(filed.body.id);
    for (const format of ["json", "csv"]) {
      const evidence = await rest(
        h.server,
        { apiKey: h.key },
        "GET",
        `/erasure-requests/${id}/evidence?format=${format}`,
      );
      expect(evidence.status, JSON.stringify(evidence.body)).toBe(200);
      expect(String(evidence.body.content)).toContain(nulKey.toString("base64"));
    }
  });
});
