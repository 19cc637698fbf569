// Runs the log store's benches in this order; an argument keeps those whose name contains it
// (`npm run bench -w @lastword/logstore -- cleaner`). Each is named by a literal import, so the
// import graph (and the layer rules checked by `npm run lint`) sees every module the bench loads.
const benches: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  "append-read.bench.ts": () => import("./append-read.bench"),
  "cleaner.bench.ts": () => import("./cleaner.bench"),
};

const only = process.argv[2];
for (const [name, load] of Object.entries(benches)) {
  if (only !== undefined && !name.includes(only)) continue;
  console.log(`\n== ${name} ==`);
  await (await load()).run();
}

// Top-level await above needs this file to be a module.
export {};
