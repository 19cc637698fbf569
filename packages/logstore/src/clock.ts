/**
 * The one clock every time-dependent part of Lastword reads (the log store, the api's services
 * and caches, the worker's timers): milliseconds since the epoch. It is passed in, never reached
 * for, so a test can hold time still or move it without sleeping.
 */
export interface Clock {
  now(): number;
}

/** The real clock. Shared, so code comparing clocks by identity sees one system clock. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/**
 * A clock for tests: time only moves when the test moves it (`advance`). Starts at a given
 * time, by default the real time when it was made, so rows and timestamps it stamps still look
 * current to Postgres and Redis.
 */
export class ManualClock implements Clock {
  #ms: number;

  constructor(startMs: number = Date.now()) {
    this.#ms = startMs;
  }

  now(): number {
    return this.#ms;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`a clock only moves forward (advance by ${ms} ms)`);
    this.#ms += ms;
  }
}
