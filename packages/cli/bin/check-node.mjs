// The Node.js version check that runs before anything else: `npm start` and `npm test` (their
// pre-scripts) and the `lastword` bin. On an older Node the code fails deep in an import (Node 20:
// "does not provide an export named 'zstdCompressSync'"), so this says what is needed instead.
// Plain JavaScript that Node 14 and later parse, importing nothing of ours, so it runs on the old
// Node it is meant to catch. Keep NODE_MAJOR in step with .nvmrc, .node-version and
// package.json's engines (test/node-version.test.ts checks that they agree).
import { fileURLToPath } from "node:url";

export const NODE_MAJOR = 24;

/** The sentence for a Node older than NODE_MAJOR, or null when `version` (e.g. "20.11.1") will do. */
export function nodeVersionProblem(version, execPath) {
  const major = Number(String(version).replace(/^v/, "").split(".")[0]);
  if (major >= NODE_MAJOR) return null;
  return (
    `Lastword needs Node.js ${NODE_MAJOR} or newer, but this is Node.js ${version} (${execPath}). ` +
    `Install Node.js ${NODE_MAJOR}: with nvm, \`nvm install && nvm use\` in the repository (it reads .nvmrc); ` +
    `fnm, volta, asdf and nodenv read .node-version; or get it from https://nodejs.org/. ` +
    "Then run the command again."
  );
}

/** Exits (status 1) with the sentence on stderr when this Node is too old; returns otherwise. */
export function exitOnWrongNode() {
  // biome-ignore lint/style/noProcessEnv: a test stands in an old version here (the check runs before any env.ts could load).
  const pretend = process.env.LASTWORD_CHECK_NODE_VERSION;
  const problem = nodeVersionProblem(pretend || process.versions.node, process.execPath);
  if (problem === null) return;
  console.error(problem);
  process.exit(1);
}

// `node check-node.mjs` (the npm pre-scripts) checks and exits.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) exitOnWrongNode();
