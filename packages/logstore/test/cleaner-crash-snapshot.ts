import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Hash of every live segment log (name → sha1): what "old or new segments" is judged on. */
export function liveLogHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => /^\d{20}\.log$/.test(n))
    .sort()) {
    out[name] = createHash("sha1")
      .update(fs.readFileSync(path.join(dir, name)))
      .digest("hex");
  }
  return out;
}
