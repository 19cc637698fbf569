import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

describe("the REST client's paths need no Node Buffer", () => {
  it("reads a stream (stored and batch frames, headers, offsets) and encodes a produce body without the global Buffer", async () => {
    // Bundled and run by plain node: a TypeScript loader in the child would itself need Buffer.
    const dir = mkdtempSync(join(tmpdir(), "lastword-no-buffer-"));
    const outfile = join(dir, "no-node-buffer.mjs");
    await build({
      entryPoints: [fileURLToPath(new URL("./fixtures/no-node-buffer.ts", import.meta.url))],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      logLevel: "error",
    });
    const out = execFileSync(process.execPath, [outfile], { encoding: "utf8" });
    rmSync(dir, { recursive: true, force: true });
    expect(JSON.parse(out)).toEqual({
      seen: [
        [8, "k2", -1, ["h"]],
        [20, "k", -1, []],
      ],
      offsets: { 0: 21 },
      produceBytes: 5 + 5 + 16 + 4 + 1 + 4 + 2 + 2 + 1 + 4,
      buffer: "undefined",
    });
  });
});
