// Paired assertions, as TigerBeetle places them: what a write promises is checked where it is
// written (append, swap) and again where it is read back (the reader), so a bug that breaks the
// segment layout stops at the first place it shows instead of serving or persisting wrong bytes.
// They guard the log store's own rules, never input: input errors are LogStoreErrors.

/** A broken internal rule of the log store: a bug to report, not a condition to handle. */
export class LogInvariantError extends Error {
  constructor(message: string) {
    super(`log store invariant broken: ${message}`);
    this.name = "LogInvariantError";
  }
}

/** Throws LogInvariantError unless `condition`; `message` is built only when it fails. */
export function invariant(condition: boolean, message: string | (() => string)): asserts condition {
  if (!condition) throw new LogInvariantError(typeof message === "string" ? message : message());
}
