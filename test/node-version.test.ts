import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// On a Node older than 24 the code dies in an import (Node 20: "does not provide an export named
// 'zstdCompressSync'"). `npm start`, `npm test` (their pre-scripts) and the `lastword` bin check
// the version first with packages/cli/bin/check-node.mjs. LASTWORD_CHECK_NODE_VERSION stands in an
// old version on this Node 24; where the machine has an older /usr/bin/node, it is run for real.
const root = fileURLToPath(new URL("..", import.meta.url));
const CHECK = join(root, "packages/cli/bin/check-node.mjs");
const BIN = join(root, "packages/cli/bin/lastword.mjs");
const SENTENCE =
  /^Lastword needs Node\.js 24 or newer, but this is Node\.js (\S+) \(.+\)\. Install Node\.js 24:/;

function run(command: string, args: string[], pretend?: string) {
  const env = { ...process.env };
  delete env.LASTWORD_CHECK_NODE_VERSION;
  if (pretend) env.LASTWORD_CHECK_NODE_VERSION = pretend;
  const result = spawnSync(command, args, { cwd: root, env, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The stderr is the one sentence: no stack trace, no import error. */
function expectSentence(stderr: string, version: string): void {
  const [line, ...more] = stderr.trim().split("\n");
  expect(more, stderr).toEqual([]);
  expect(SENTENCE.exec(line ?? "")?.[1], stderr).toBe(version);
  expect(line).toContain(".nvmrc");
  expect(stderr).not.toMatch(/SyntaxError|\n\s+at /);
}

describe("the Node version check", () => {
  it.each(["20.11.1", "v22.15.0", "18.0.0"])("refuses Node %s with one sentence, exit 1", (version) => {
    const result = run(process.execPath, [CHECK], version);
    expect(result.status).toBe(1);
    expectSentence(result.stderr, version);
  });

  it.each(["24.0.0", "25.2.1"])("lets Node %s through silently", (version) => {
    const result = run(process.execPath, [CHECK], version);
    expect(result).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  it("lets this Node (24) through when nothing is pretended", () => {
    expect(run(process.execPath, [CHECK])).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  it("stops the lastword bin before it loads anything", () => {
    const result = run(process.execPath, [BIN, "--help"], "20.11.1");
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expectSentence(result.stderr, "20.11.1");
    // And on Node 24 the same bin runs.
    const ok = run(process.execPath, [BIN, "--help"]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("lastword");
  });

  it.each(["start", "test"])("runs before npm %s (its pre-script)", (script) => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts as Record<
      string,
      string
    >;
    expect(scripts[`pre${script}`]).toBe("node packages/cli/bin/check-node.mjs");
    const npm = run("npm", ["run", "--silent", `pre${script}`], "20.11.1");
    expect(npm.status).not.toBe(0);
    expectSentence(npm.stderr, "20.11.1");
  });

  it("says so on a real old Node where the machine has one (else on this Node, pretending)", () => {
    const old = "/usr/bin/node";
    const version = existsSync(old)
      ? spawnSync(old, ["-p", "process.versions.node"], { encoding: "utf8" })
      : null;
    const real = version !== null && Number(version.stdout.split(".")[0]) < 24;
    const result = real ? run(old, [BIN, "--help"]) : run(process.execPath, [BIN, "--help"], "20.0.0");
    expect(result.status).toBe(1);
    expectSentence(result.stderr, real ? version.stdout.trim() : "20.0.0");
  });

  it("asks for the same version as .nvmrc, .node-version and package.json's engines", () => {
    const major = /export const NODE_MAJOR = (\d+);/.exec(readFileSync(CHECK, "utf8"))?.[1];
    expect(major).toBe("24");
    expect(readFileSync(join(root, ".nvmrc"), "utf8").trim()).toBe(major);
    expect(readFileSync(join(root, ".node-version"), "utf8").trim()).toBe(major);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${major}`);
  });
});
