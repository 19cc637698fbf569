import { readTextFile, writeFileAtomically } from "./checkpoint-file";

// The cleaner's per-partition checkpoint (Kafka keeps one `cleaner-offset-checkpoint` per log
// directory; a Lastword partition has its own directory, so the file holds one entry). Beside
// Kafka's first dirty offset it records the earliest delete horizon of a tombstone the last pass
// kept, so that after a restart an idle partition still becomes due when that horizon passes.

export const CLEANER_CHECKPOINT_FILE = "cleaner-offset-checkpoint";
const VERSION = "0";
const NO_HORIZON = -1;

export interface CleanerCheckpoint {
  /** Where the next pass's dirty section starts (the last pass's end offset). */
  firstDirtyOffset: number;
  /** Earliest horizon among tombstones kept in the clean section, or null when none is left. */
  earliestDeleteHorizonMs: number | null;
}

/** The checkpoint, or null when missing or unreadable (the cleaner then starts at the log start). */
export function readCleanerCheckpoint(dir: string): CleanerCheckpoint | null {
  const text = readTextFile(dir, CLEANER_CHECKPOINT_FILE);
  if (text === null) return null;
  const [version, offsetText, horizonText] = text.split("\n");
  const offset = Number(offsetText);
  const horizon = Number(horizonText);
  const valid =
    version === VERSION &&
    offsetText !== "" &&
    horizonText !== "" &&
    Number.isSafeInteger(offset) &&
    offset >= 0 &&
    Number.isSafeInteger(horizon);
  if (!valid) return null;
  return { firstDirtyOffset: offset, earliestDeleteHorizonMs: horizon === NO_HORIZON ? null : horizon };
}

/** Replaces the checkpoint atomically: temp file, fsync, rename over, fsync the directory. */
export function writeCleanerCheckpoint(dir: string, checkpoint: CleanerCheckpoint): void {
  const horizon = checkpoint.earliestDeleteHorizonMs ?? NO_HORIZON;
  writeFileAtomically(
    dir,
    CLEANER_CHECKPOINT_FILE,
    `${VERSION}\n${checkpoint.firstDirtyOffset}\n${horizon}\n`,
  );
}
