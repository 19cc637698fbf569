// Runs npm scripts side by side and fails when any of them fails: `npm test`'s checks before the
// suite (lint, the two type-check programs, the web build). tsc checks on one thread and the web
// build and biome use what is left, so on the 2-core CI machine running them one after another left
// a core idle for most of their ~4 minutes. Each script's output is printed whole when it ends (not
// interleaved), prefixed by its name, with how long it took.
import { spawn } from "node:child_process";

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error("usage: node scripts/run-parallel.mjs <npm script>...");
  process.exit(2);
}

function run(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString().trimEnd();
      const status = code === 0 ? "ok" : `failed (${signal ?? `exit ${code}`})`;
      console.log(`== ${script}: ${status} in ${seconds} s${text ? `\n${text}` : ""}`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(scripts.map(run));
const failed = scripts.filter((_, i) => !results[i]);
if (failed.length > 0) {
  console.error(`failed: ${failed.join(", ")}`);
  process.exit(1);
}
