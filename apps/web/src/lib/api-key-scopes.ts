/** The scopes a console user can grant a key, with what each allows, in the order shown. */
export const API_KEY_SCOPES = [
  { scope: "topics:read", label: "Read topics", byDefault: true },
  { scope: "topics:write", label: "Create and change topics", byDefault: true },
  { scope: "records:read", label: "Read records", byDefault: true },
  { scope: "records:write", label: "Produce records and tombstones", byDefault: true },
  { scope: "groups:read", label: "Read consumer-group offsets", byDefault: true },
  { scope: "groups:write", label: "Commit consumer-group offsets", byDefault: true },
  { scope: "keys:read", label: "List API keys", byDefault: false },
  { scope: "keys:write", label: "Create and revoke API keys", byDefault: false },
] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number]["scope"];

export const DEFAULT_SCOPES: ApiKeyScope[] = API_KEY_SCOPES.filter((entry) => entry.byDefault).map(
  (entry) => entry.scope,
);
