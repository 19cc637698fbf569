import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface LocalSecrets {
  internalSecret: string;
  authSecret: string;
}

/** Secrets for a local install: made once, kept in .lastword/ (gitignored), never printed. */
export function localSecrets(file: string): LocalSecrets {
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as LocalSecrets;
  const secrets = {
    internalSecret: randomBytes(32).toString("base64url"),
    authSecret: randomBytes(32).toString("base64url"),
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}
