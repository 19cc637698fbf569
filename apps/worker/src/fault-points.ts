/**
 * Test-only crash points (LASTWORD_FAULT_POINT, refused in production): the worker process
 * SIGKILLs itself when it reaches the named step, so crash tests can stop it exactly there.
 * - `after-append`: a produce (REST or Kafka) is in the log, not yet answered;
 * - `before-manifest-commit`: a commit window's object is PUT, its manifest rows not committed;
 * - `before-segment-swap`: a closed (or cleaned) segment's object is PUT, the rows it replaces not swapped;
 * - `before-tail-swap`: a partition's consolidated commit rows are PUT as its own object, not swapped;
 * - `before-superseded-delete`: the manifest stopped naming an object, which is not deleted yet;
 * - `after-clean-before-upload`: a cleaner pass swapped its segments on disk, none uploaded yet.
 */
export const FAULT_POINTS = [
  "after-append",
  "before-manifest-commit",
  "before-segment-swap",
  "before-tail-swap",
  "before-superseded-delete",
  "after-clean-before-upload",
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

/** The crash hook for `point` (a no-op unless it is the configured one). */
export function crashAt(configured: FaultPoint | undefined): (point: FaultPoint) => void {
  return (point) => {
    if (point === configured) process.kill(process.pid, "SIGKILL");
  };
}
