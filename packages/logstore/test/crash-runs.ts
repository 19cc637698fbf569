// The crash campaigns' sizes, and the cleaner property's run count. `npm test` runs enough kills to
// reach every fault point and catch a regression in minutes; LASTWORD_CRASH_RUNS=full runs the
// full campaigns (nightly, before a release, after touching the write or swap path).
const setting = process.env.LASTWORD_CRASH_RUNS ?? "";
if (setting !== "" && setting !== "full") {
  throw new Error(
    `LASTWORD_CRASH_RUNS is "${setting}": set it to "full" for the full crash campaigns, or unset it`,
  );
}

/** `full` under LASTWORD_CRASH_RUNS=full, else `quick`. */
export function crashRuns(sizes: { full: number; quick: number }): number {
  return setting === "full" ? sizes.full : sizes.quick;
}
