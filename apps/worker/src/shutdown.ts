import type { Logger } from "./logger";

interface ShutdownStep {
  name: string;
  run: () => Promise<void> | void;
}

/**
 * Named shutdown handlers run once, in the order added (stop taking work → close logs → release
 * leases → close the database); a failing or slow step is logged and the next one still runs.
 */
export class ShutdownSequence {
  readonly #steps: ShutdownStep[] = [];
  readonly #stepTimeoutMs: number;
  #running: Promise<void> | null = null;

  constructor(stepTimeoutMs = 10_000) {
    this.#stepTimeoutMs = stepTimeoutMs;
  }

  add(name: string, run: ShutdownStep["run"]): void {
    this.#steps.push({ name, run });
  }

  run(logger: Logger): Promise<void> {
    this.#running ??= this.#runSteps(logger);
    return this.#running;
  }

  async #runSteps(logger: Logger): Promise<void> {
    for (const step of this.#steps) {
      const started = performance.now();
      try {
        await withTimeout(Promise.resolve().then(step.run), this.#stepTimeoutMs, step.name);
        logger.debug({ step: step.name, ms: Math.round(performance.now() - started) }, "shutdown step done");
      } catch (error) {
        logger.error({ step: step.name, err: error }, "shutdown step failed");
      }
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`shutdown step "${name}" took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
