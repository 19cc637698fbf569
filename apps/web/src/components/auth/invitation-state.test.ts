import { describe, expect, it } from "vitest";
import { type InvitationRow, invitationState } from "./invitation-state";

const now = new Date("2026-03-01T12:00:00Z");
const row = (overrides: Partial<InvitationRow>): InvitationRow => ({
  organizationId: "org-1",
  email: "ada@example.com",
  role: "developer",
  status: "pending",
  expiresAt: new Date("2026-03-08T12:00:00Z"),
  organization: { name: "Acme" },
  ...overrides,
});

describe("invitationState", () => {
  it("is unknown without a row", () => {
    expect(invitationState(null, now)).toEqual({ kind: "unknown" });
  });

  it("is pending with the invited email, role and organization while unexpired", () => {
    expect(invitationState(row({}), now)).toEqual({
      kind: "pending",
      organizationName: "Acme",
      organizationId: "org-1",
      email: "ada@example.com",
      role: "developer",
      expiresAt: new Date("2026-03-08T12:00:00Z"),
    });
  });

  it("is expired from the expiry instant on, though better-auth still says pending", () => {
    expect(invitationState(row({ expiresAt: now }), now).kind).toBe("expired");
    expect(invitationState(row({ expiresAt: new Date(now.getTime() + 1) }), now).kind).toBe("pending");
  });

  it("tells accepted from withdrawn (rejected or canceled), whatever the expiry", () => {
    expect(invitationState(row({ status: "accepted", expiresAt: new Date(0) }), now).kind).toBe("accepted");
    expect(invitationState(row({ status: "canceled" }), now).kind).toBe("withdrawn");
    expect(invitationState(row({ status: "rejected" }), now).kind).toBe("withdrawn");
  });

  it("reads a missing role as viewer, the least a member can be", () => {
    const state = invitationState(row({ role: null }), now);
    expect(state.kind === "pending" && state.role).toBe("viewer");
  });
});
