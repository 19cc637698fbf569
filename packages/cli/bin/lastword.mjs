#!/usr/bin/env node
// The CLI is TypeScript like the rest of the repo; tsx loads it without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
