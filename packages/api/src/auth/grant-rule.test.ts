import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors/app-error";
import { assertCanGrant, canGrant, type Granter, grantShortfall } from "./grant-rule";
import { expandScopes, ROLES, SCOPES, scopesOfRole } from "./scopes";

const role = fc.constantFrom(...ROLES);
const scopes = fc.uniqueArray(fc.constantFrom(...SCOPES), { maxLength: 6 });
const granter: fc.Arbitrary<Granter> = fc.oneof(
  role.map((r) => ({ role: r, scopes: scopesOfRole(r) })),
  scopes.map((s) => ({ role: null, scopes: s })),
);
const grant = fc.oneof(
  role.map((r) => ({ role: r })),
  scopes.map((s) => ({ scopes: s })),
);

describe("canGrant", () => {
  it("allows a grant exactly when its scopes are among the granter's and ownership comes from an owner", () => {
    fc.assert(
      fc.property(granter, grant, (g, wanted) => {
        const held = expandScopes(g.scopes);
        const given = expandScopes("role" in wanted ? scopesOfRole(wanted.role) : wanted.scopes);
        const model =
          given.every((s) => held.includes(s)) &&
          !("role" in wanted && wanted.role === "owner" && g.role !== "owner");
        expect(canGrant(g, wanted)).toBe(model);
      }),
    );
  });

  it("along any chain of accepted grants, nothing ends above the first granter", () => {
    fc.assert(
      fc.property(granter, fc.array(grant, { maxLength: 8 }), (root, chain) => {
        let current: Granter = root;
        for (const next of chain) {
          if (!canGrant(current, next)) continue;
          current =
            "role" in next
              ? { role: next.role, scopes: scopesOfRole(next.role) }
              : { role: null, scopes: next.scopes };
        }
        expect(
          canGrant(
            root,
            "role" in current && current.role ? { role: current.role } : { scopes: current.scopes },
          ),
        ).toBe(true);
      }),
    );
  });

  it("names what is missing, `admin` alone when the grant needs it", () => {
    const developer = { role: "developer" as const, scopes: scopesOfRole("developer") };
    expect(grantShortfall(developer, { role: "admin" })).toEqual({
      missingScopes: ["admin"],
      needsOwner: false,
    });
    expect(
      grantShortfall({ role: null, scopes: ["members:write"] }, { role: "viewer" }).missingScopes,
    ).toEqual(["topics:read", "records:read", "groups:read", "schemas:read"]);
    const admin = { role: "admin" as const, scopes: scopesOfRole("admin") };
    expect(grantShortfall(admin, { role: "owner" })).toEqual({ missingScopes: [], needsOwner: true });
    expect(canGrant({ role: "owner", scopes: scopesOfRole("owner") }, { role: "owner" })).toBe(true);
    expect(() => assertCanGrant(developer, { scopes: ["admin"] }, "create a key with")).toThrow(AppError);
  });
});
