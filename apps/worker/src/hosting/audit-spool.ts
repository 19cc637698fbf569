import { appendFileSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AuditEventInput } from "@lastword/erasure/audit-chain";

/** An audit event waiting for Postgres, with the id that makes a replay of it detectable. */
export interface SpooledEvent {
  id: string;
  event: AuditEventInput;
}

const SPOOL = /^audit-pending\.(\d+)\.jsonl$/;

/**
 * Audit events of one partition not yet in Postgres, in `<partition dir>/audit-pending.<epoch>.jsonl`
 * (one JSON line each), so a worker that dies with events queued does not lose them: the next owner
 * of the partition takes the file over when it opens the log. Writes are synchronous and small: an
 * append before the produce is answered (it survives a process crash; like the log's own page cache
 * it is not fsynced, so not a power loss), a rewrite after each event reaches Postgres. The file
 * carries the owner's epoch so an earlier owner still draining its queue never rewrites ours.
 */
export class AuditSpool {
  readonly #path: string;

  constructor(dir: string, epoch: number) {
    this.#path = join(dir, `audit-pending.${epoch}.jsonl`);
  }

  append(entry: SpooledEvent): void {
    appendFileSync(this.#path, `${JSON.stringify(entry)}\n`);
  }

  /** Replaces the file with what is still pending (removes it when nothing is). */
  rewrite(pending: readonly SpooledEvent[]): void {
    if (pending.length === 0) {
      try {
        unlinkSync(this.#path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
      return;
    }
    const temp = `${this.#path}.tmp`;
    writeFileSync(temp, pending.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
    renameSync(temp, this.#path);
  }

  /**
   * The events earlier owners (epochs below ours) left in the directory, moved into our file. A torn
   * last line (the process died mid-append, before the produce was answered) is skipped.
   */
  takeOver(dir: string, epoch: number): SpooledEvent[] {
    const taken: SpooledEvent[] = [];
    const files = readdirSync(dir).filter((name) => Number(SPOOL.exec(name)?.[1] ?? epoch) < epoch);
    for (const name of files) {
      for (const line of readFileSync(join(dir, name), "utf8").split("\n")) {
        const entry = parseLine(line);
        if (entry) taken.push(entry);
      }
    }
    for (const entry of taken) this.append(entry);
    for (const name of files) unlinkSync(join(dir, name));
    return taken;
  }
}

function parseLine(line: string): SpooledEvent | null {
  if (line.trim() === "") return null;
  try {
    const parsed = JSON.parse(line) as SpooledEvent & { event: { now: string } };
    return { id: parsed.id, event: { ...parsed.event, now: new Date(parsed.event.now) } };
  } catch {
    return null;
  }
}
