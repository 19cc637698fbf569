import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

// A port nothing listens on: connecting is refused at once, as with a stopped server.
const CLOSED = "127.0.0.1:9";

// Failing fast is the preflight's bounded connect timeout (scripts/start/preflight.ts); here the
// process must exit by itself (no retry loop: the test timeout would end a hung one), code 1.
function runStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: root,
      env: { ...process.env, LASTWORD_SKIP_BUILD: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("npm start preflight", () => {
  it("stops with one sentence naming the Postgres URL when Postgres cannot be reached", async () => {
    const result = await runStart({ DATABASE_URL: `postgresql://postgres@${CLOSED}/lastword` });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Cannot reach PostgreSQL at postgresql:\/\/postgres@127\.0\.0\.1:9\/lastword: start it/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("stops with one sentence naming the Redis URL when Redis cannot be reached", async () => {
    const result = await runStart({ REDIS_URL: `redis://${CLOSED}` });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot reach Redis at redis:\/\/127\.0\.0\.1:9: start it/);
  });
});
