import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Runs every bench/*.bench.ts in name order. A bench module either does its work when imported
// or exports `run()`, which is awaited.

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const files = fs
  .readdirSync(here)
  .filter((name) => name.endsWith(".bench.ts") && (only === undefined || name.includes(only)))
  .sort();

for (const name of files) {
  console.log(`\n== ${name} ==`);
  const module = (await import(pathToFileURL(path.join(here, name)).href)) as { run?: () => Promise<void> };
  if (typeof module.run === "function") await module.run();
}
