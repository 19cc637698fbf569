// The floor phase of the noisy-neighbour bench (noisy-bench.ts): a pure CPU burner standing in for
// tenant B. It uses the cores as B's flood did (its own process plus the worker's extra work for
// it) but sends the worker nothing, so what A loses meanwhile is what sharing the machine's cores
// costs, which no quota in the worker can give back. Spins `duty` of every 10 ms slot until its
// time is up.
export {};

const { duty, seconds } = JSON.parse(process.argv[2]!) as { duty: number; seconds: number };
const SLOT_MS = 10;
const until = performance.now() + seconds * 1000;
while (performance.now() < until) {
  const slot = performance.now();
  while (performance.now() - slot < duty * SLOT_MS);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, SLOT_MS - (performance.now() - slot))));
}
// What it really used: CPU seconds, for the bench's row.
process.stdout.write(
  `${JSON.stringify({ cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6 })}\n`,
);
process.exit(0);
