import { describe, expect, it } from "vitest";
import {
  acceptInvitation,
  type Caller,
  invite,
  rest,
  signUp,
  tamperAuditEvents,
  useHarness,
} from "./api-harness";

// The compliance role reads the audit trail (erasure:read) but manages no members: an export must
// not hand it the ids, addresses and roles of invitations, which a takeover starts from.
const h = useHarness("audit_export_invitations");

async function exportTrail(caller: Caller, format: "csv" | "json") {
  const res = await rest(h.server, caller, "GET", `/audit/export?format=${format}`);
  expect(res.status).toBe(200);
  return String(res.body.content);
}

describe("audit export and invitations", () => {
  it("keeps invitation ids, addresses and roles out of a compliance member's export and listing", async () => {
    const owner = await signUp(h.server, "owner@example.com", "Owner");
    const pending = await invite(h.server, { cookie: owner.cookie }, "newhire@example.com", "admin");
    const dpo = await signUp(h.server, "dpo@example.com", "DPO");
    const joined = await invite(h.server, { cookie: owner.cookie }, "dpo@example.com", "compliance");
    expect((await acceptInvitation(h.server, dpo, joined)).status).toBe(200);

    for (const format of ["csv", "json"] as const) {
      const seen = await exportTrail({ cookie: dpo.cookie }, format);
      expect(seen, format).toContain("member.invited");
      for (const secret of [
        pending.invitationId,
        joined.invitationId,
        "newhire@example.com",
        pending.token,
      ]) {
        expect(seen, `${format}: ${secret}`).not.toContain(secret);
      }
    }
    const rows = JSON.parse(await exportTrail({ cookie: dpo.cookie }, "json")) as {
      action: string;
      targetId: string | null;
      data: Record<string, unknown>;
      redacted: boolean;
      hash: string;
    }[];
    const invited = rows.filter((r) => r.action === "member.invited");
    expect(invited).toHaveLength(2);
    for (const row of invited) {
      expect(row).toMatchObject({ targetId: null, data: {}, redacted: true });
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    // The join names the member and the proof, not the invitation it used.
    const join = rows.find((r) => r.action === "member.joined")!;
    expect(join).toMatchObject({ redacted: true, data: { email: "dpo@example.com", role: "compliance" } });
    expect(join.data.invitationId).toBeUndefined();
    // The listing applies the same rule.
    const listed = await rest(h.server, { cookie: dpo.cookie }, "GET", "/audit/events?limit=100");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(joined.invitationId);
    expect(JSON.stringify(listed.body)).not.toContain(pending.invitationId);

    // Those who manage members see all of it, as the members list shows it to them.
    const full = await exportTrail({ cookie: owner.cookie }, "csv");
    for (const shown of [pending.invitationId, joined.invitationId, "newhire@example.com"]) {
      expect(full).toContain(shown);
    }
    expect(full.split("\r\n")[0]).toBe(
      "seq,createdAt,actorType,actorId,actorName,action,targetType,targetId,data,redacted,prevHash,hash",
    );
  });

  it("names a tampered invitation event to the compliance role by its place in the chain, not its id", async () => {
    const dpo = await signUp(h.server, "dpo2@example.com", "DPO 2");
    const owner = await signUp(h.server, "owner2@example.com", "Owner 2");
    const joined = await invite(h.server, { cookie: owner.cookie }, "dpo2@example.com", "compliance");
    expect((await acceptInvitation(h.server, dpo, joined)).status).toBe(200);
    const target = await h.db.prisma.auditEvent.findFirstOrThrow({
      where: { targetId: joined.invitationId, action: "member.invited" },
    });
    await tamperAuditEvents(
      h.db.prisma,
      `UPDATE "AuditEvent" SET "createdAt" = "createdAt" - interval '1 day' WHERE "id" = $1`,
      target.id,
    );
    const seen = await rest(h.server, { cookie: dpo.cookie }, "GET", "/audit/verify");
    expect(seen.body).toMatchObject({
      ok: false,
      firstBrokenSeq: target.seq,
      firstBroken: { action: "member.invited", targetType: "invitation", targetId: null },
    });
    const owners = await rest(h.server, { cookie: owner.cookie }, "GET", "/audit/verify");
    expect(owners.body).toMatchObject({ firstBroken: { targetId: joined.invitationId } });
  });
});
