import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("the REST client's paths need no Node Buffer", () => {
  it("reads a stream (stored and batch frames, headers, offsets) and encodes a produce body without the global Buffer", () => {
    const script = fileURLToPath(new URL("./fixtures/no-node-buffer.ts", import.meta.url));
    const out = execFileSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8" });
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
