import { AsyncLocalStorage, createHook } from "node:async_hooks";
import { performance } from "node:perf_hooks";

/** The event-loop time one request has taken so far, in milliseconds. */
export class RequestMeter {
  ms = 0;
}

const current = new AsyncLocalStorage<RequestMeter>();
/** The meters of the callbacks running now, innermost last (async_hooks' before/after nest). */
const running: (RequestMeter | undefined)[] = [];
let since = 0;

function switchTo(push: RequestMeter | undefined | null): void {
  const now = performance.now();
  const top = running.at(-1);
  if (top) top.ms += now - since;
  since = now;
  if (push === null) running.pop();
  else running.push(push);
}

let installed = false;

/**
 * Kafka's request quota measures the time a request keeps a broker's threads busy (KIP-124). Here
 * one thread serves every tenant, and a request's work is split into the callbacks and promise
 * continuations that run between its awaits, interleaved with other tenants' ones: each of those
 * runs inside the request's AsyncLocalStorage context, and the async hook's before/after around
 * every callback adds the time it ran to that request's meter. Waiting (on the disk, Postgres,
 * a long poll, the inflate pool) is not counted: only time on the loop is.
 */
function install(): void {
  if (installed) return;
  installed = true;
  createHook({
    before() {
      switchTo(current.getStore());
    },
    after() {
      switchTo(null);
    },
  }).enable();
}

/**
 * Runs `work` (a request's handling) with its loop time counted on `meter`: the synchronous part
 * now, and every callback and continuation it leads to as it runs.
 */
export function metered<T>(meter: RequestMeter, work: () => Promise<T>): Promise<T> {
  install();
  switchTo(meter);
  try {
    return current.run(meter, work);
  } finally {
    switchTo(null);
  }
}
