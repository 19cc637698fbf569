import { Worker } from "node:worker_threads";
import type { FetchedRecord } from "@lastword/dataplane";
import { AppError } from "../errors/app-error";
import { FILTER_WORKER_SOURCE } from "./filter-sandbox-worker";

/** A search's programmable filter: a regular expression, a JavaScript predicate, or both (both must hold). */
export interface ProgrammableFilter {
  regex?: { pattern: string; flags: string; on: readonly ("key" | "value" | "headers")[] } | undefined;
  /** A function body over `record` (partition, offset, timestamp, key, value, headers, json); truthy keeps it. */
  javascript?: string | undefined;
}

export interface SandboxLimits {
  /** Longest one record may take: past it the thread is ended and the search fails (a runaway predicate). */
  perRecordMs: number;
  /** When the whole search must be over: past it the batch under way is abandoned, not failed. */
  deadline: number;
  /** Heap the predicate may use. */
  memoryMb: number;
}

/** The deadline passed during a batch: the first `evaluated` records have their `flags`, the rest none. */
export class FilterDeadline extends Error {
  constructor(
    readonly evaluated: number,
    readonly flags: Uint8Array,
  ) {
    super("The search's time ran out during the filter.");
  }
}

/** How often the parent looks at the thread's clock: a record's overrun is seen within this. */
const WATCH_MS = 10;
/**
 * How long a batch may sit unstarted (the thread busy with something it scheduled, or not yet
 * scheduled by a loaded machine) before the thread counts as stuck.
 */
const START_GRACE_MS = 2_000;

const failed = (message: string, details: Record<string, unknown> = {}) =>
  new AppError("FILTER_FAILED", message, { details });

/** A record and the partition it was read from. */
export interface PartitionRecord {
  partition: number;
  record: FetchedRecord;
}

/** A record as the sandbox gets it: primitives only (bytes read as UTF-8, headers as JSON pairs). */
function asPrimitives({ partition, record }: PartitionRecord) {
  return [
    partition,
    record.offset,
    record.timestamp,
    record.key === null ? null : record.key.toString("utf8"),
    record.value === null ? null : record.value.toString("utf8"),
    JSON.stringify(record.headers.map((h) => [h.key, h.value === null ? null : h.value.toString("utf8")])),
  ] as const;
}

/** The regular expression checked here, where it only compiles, so a bad one is a 400 before any read. */
function checkedRegex(regex: ProgrammableFilter["regex"]) {
  if (!regex) return null;
  try {
    new RegExp(regex.pattern, regex.flags);
  } catch (error) {
    throw new AppError(
      "INVALID_INPUT",
      `filter.regex is not a regular expression: ${(error as Error).message}`,
      {
        details: { path: "filter.regex.pattern" },
      },
    );
  }
  return {
    pattern: regex.pattern,
    flags: regex.flags,
    key: regex.on.includes("key"),
    value: regex.on.includes("value"),
    headers: regex.on.includes("headers"),
  };
}

/**
 * A programmable filter run in its own worker thread (filter-sandbox-worker.ts says what the code
 * can reach), one per search. The thread is bounded three ways the code cannot undo: a heap limit
 * (resourceLimits), a time per record and the search's deadline, both watched from this side of
 * the thread through a shared clock and enforced by ending the thread (which interrupts any loop,
 * a runaway regular expression included).
 */
export class FilterSandbox {
  readonly #worker: Worker;
  readonly #clock: Float64Array;
  readonly #at: Int32Array;
  readonly #limits: SandboxLimits;
  #exit: Error | null = null;

  private constructor(
    worker: Worker,
    clock: SharedArrayBuffer,
    at: SharedArrayBuffer,
    limits: SandboxLimits,
  ) {
    this.#worker = worker;
    this.#clock = new Float64Array(clock);
    this.#at = new Int32Array(at);
    this.#limits = limits;
  }

  /** Starts the thread and compiles the filter there; a predicate that does not parse is a 400. */
  static async open(filter: ProgrammableFilter, limits: SandboxLimits): Promise<FilterSandbox> {
    const regex = checkedRegex(filter.regex);
    const clock = new SharedArrayBuffer(8);
    const at = new SharedArrayBuffer(4);
    const worker = new Worker(FILTER_WORKER_SOURCE, {
      eval: true,
      workerData: { clock, at, predicate: filter.javascript ?? null, regex },
      resourceLimits: {
        maxOldGenerationSizeMb: limits.memoryMb,
        maxYoungGenerationSizeMb: 8,
        stackSizeMb: 1,
      },
      // Nothing of the parent's environment: the thread's own process object is all the worker code sees.
      env: {},
      stdout: true,
      stderr: true,
    });
    const sandbox = new FilterSandbox(worker, clock, at, limits);
    worker.on("error", (error) => {
      sandbox.#exit = error;
    });
    const ready = await new Promise<{ ready: boolean; error?: string }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("exit", () => reject(failed("The filter's sandbox did not start.")));
    });
    if (!ready.ready) {
      await worker.terminate();
      throw new AppError("INVALID_INPUT", `filter.javascript does not compile: ${ready.error}`, {
        details: { path: "filter.javascript" },
      });
    }
    return sandbox;
  }

  /**
   * Which of `records` the filter keeps, one flag each (one batch at a time: the thread answers in order). Throws FILTER_FAILED
   * (the thread is then gone) when a record runs past its time, the predicate throws or the heap
   * runs out, and FilterDeadline when the search's time is up first.
   */
  test(records: readonly PartitionRecord[]): Promise<Uint8Array> {
    if (records.length === 0) return Promise.resolve(new Uint8Array(0));
    const worker = this.#worker;
    const shared = new SharedArrayBuffer(records.length);
    const flags = new Uint8Array(shared);
    return new Promise((resolve, reject) => {
      const sentAt = Date.now();
      const settle = (outcome: () => void) => {
        clearInterval(watch);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        outcome();
      };
      const stop = (error: Error) => settle(() => void worker.terminate().then(() => reject(error), reject));
      const onMessage = (answer: { failedAt: number | null; error: string | null }) => {
        if (answer.failedAt === null) return settle(() => resolve(flags));
        const { partition, record } = records[answer.failedAt ?? 0]!;
        stop(
          failed(`The filter threw on partition ${partition} offset ${record.offset}: ${answer.error}`, {
            reason: "threw",
            partition,
            offset: record.offset,
          }),
        );
      };
      const onExit = () => {
        const memory = this.#exit && "code" in this.#exit && this.#exit.code === "ERR_WORKER_OUT_OF_MEMORY";
        settle(() =>
          reject(
            memory
              ? failed(`The filter used more than ${this.#limits.memoryMb} MB and was stopped.`, {
                  reason: "memory",
                })
              : failed("The filter's sandbox stopped.", { reason: "exited" }),
          ),
        );
      };
      const watch = setInterval(() => {
        const now = Date.now();
        if (now >= this.#limits.deadline) {
          const evaluated = Math.min(Atomics.load(this.#at, 0), records.length);
          return stop(new FilterDeadline(evaluated, flags.slice(0, evaluated)));
        }
        const started = this.#clock[0] ?? 0;
        const stuck =
          started === 0 ? now - sentAt > START_GRACE_MS : now - started > this.#limits.perRecordMs;
        if (stuck) {
          const { partition, record } = records[Atomics.load(this.#at, 0)] ?? records[0]!;
          stop(
            failed(
              `The filter ran longer than ${this.#limits.perRecordMs} ms on partition ${partition} offset ${record.offset} and was stopped.`,
              { reason: "timeout", partition, offset: record.offset },
            ),
          );
        }
      }, WATCH_MS);
      worker.on("message", onMessage);
      worker.once("exit", onExit);
      Atomics.store(this.#at, 0, 0);
      worker.postMessage({ records: records.map(asPrimitives), flags: shared });
    });
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
