import { createAccessControl } from "better-auth/plugins/access";
import { defaultStatements } from "better-auth/plugins/organization/access";

// better-auth's organization plugin checks membership operations (invite, change role, remove)
// and the api-key plugin checks `apiKey` actions against these roles. Data-plane rights are
// scopes (auth/scopes.ts); this table only covers what better-auth itself enforces.
const statements = {
  ...defaultStatements,
  apiKey: ["create", "read", "update", "delete"],
} as const;

export const accessControl = createAccessControl(statements);

const everything = {
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  ac: ["create", "read", "update", "delete"],
  apiKey: ["create", "read", "update", "delete"],
} as const;

export const roles = {
  owner: accessControl.newRole(everything),
  admin: accessControl.newRole({ ...everything, organization: ["update"] }),
  developer: accessControl.newRole({ apiKey: ["create", "read", "update", "delete"], ac: ["read"] }),
  compliance: accessControl.newRole({ ac: ["read"] }),
  viewer: accessControl.newRole({ ac: ["read"] }),
};
