#!/usr/bin/env node
// The CLI is TypeScript like the rest of the repo; tsx loads it without a build step. The Node
// version is checked first, so a too-old Node gets a sentence instead of an import error.
import { exitOnWrongNode } from "./check-node.mjs";

exitOnWrongNode();
const { register } = await import("tsx/esm/api");
register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
