/**
 * The filter sandbox's worker thread, as source text: `new Worker(source, { eval: true })` needs no
 * file beside the bundle (Next compiles this package into the app, where a worker file path would
 * not resolve). Plain CommonJS, run as it is; filter-sandbox.ts owns the thread and its limits.
 *
 * What the member's code can reach: a fresh V8 context with no Node globals (no process, require,
 * timers), strings-to-code off (no eval, no Function constructor), and for each record only
 * primitives copied into that context. Only primitives come back out (1, 0 or "!" + an error
 * message), so no object of this thread's realm, whose constructor would lead back to Node, is
 * ever handed in. Its microtasks never run (afterEvaluate, and the context is never evaluated
 * again), so an async predicate cannot keep working after its record. Before each record the
 * thread stamps the clock shared with the parent, which ends the thread when a record runs long.
 */
export const FILTER_WORKER_SOURCE = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const vm = require("node:vm");
const clock = new Float64Array(workerData.clock);
const at = new Int32Array(workerData.at);
const context = vm.createContext(Object.create(null), {
  codeGeneration: { strings: false, wasm: false },
  microtaskMode: "afterEvaluate",
});
let evaluate = null;
try {
  const user = workerData.predicate === null
    ? null
    : vm.compileFunction(workerData.predicate, ["record"], { parsingContext: context });
  const make = vm.runInContext(
    "(function (user, pattern, flags, onKey, onValue, onHeaders) {\n" +
    "  'use strict';\n" +
    "  const parse = JSON.parse;\n" +
    "  const re = pattern === null ? null : new RegExp(pattern, flags);\n" +
    "  const test = (text) => { re.lastIndex = 0; return re.test(text); };\n" +
    "  return function (partition, offset, timestamp, key, value, headersJson) {\n" +
    "    try {\n" +
    "      const pairs = parse(headersJson);\n" +
    "      if (re !== null) {\n" +
    "        let hit = (onKey && key !== null && test(key)) || (onValue && value !== null && test(value));\n" +
    "        if (!hit && onHeaders) for (const pair of pairs) if (pair[1] !== null && test(pair[1])) { hit = true; break; }\n" +
    "        if (!hit) return 0;\n" +
    "      }\n" +
    "      if (user === null) return 1;\n" +
    "      const headers = {};\n" +
    "      for (const pair of pairs) headers[pair[0]] = pair[1];\n" +
    "      let parsed, tried = false;\n" +
    "      const record = { partition, offset, timestamp, key, value, headers,\n" +
    "        get json() { if (!tried) { tried = true; try { parsed = value === null ? undefined : parse(value); } catch { parsed = undefined; } } return parsed; } };\n" +
    "      return user(record) ? 1 : 0;\n" +
    "    } catch (error) {\n" +
    "      try { return '!' + (error !== null && typeof error === 'object' && 'message' in error ? error.message : error); }\n" +
    "      catch { return '!threw a value that cannot be shown'; }\n" +
    "    }\n" +
    "  };\n" +
    "})",
    context,
  );
  const regex = workerData.regex;
  evaluate = make(
    user,
    regex === null ? null : regex.pattern,
    regex === null ? "" : regex.flags,
    regex !== null && regex.key,
    regex !== null && regex.value,
    regex !== null && regex.headers,
  );
} catch (error) {
  // Compiling ran none of the member's code: a SyntaxError from V8 is safe to read.
  parentPort.postMessage({ ready: false, error: String(error && error.message) });
}
if (evaluate !== null) parentPort.postMessage({ ready: true });
if (evaluate !== null) parentPort.on("message", ({ records, flags: shared }) => {
  // A flag is written before the index moves past its record: the parent, which reads the index
  // when it cuts a batch short, trusts exactly the flags below it.
  const flags = new Uint8Array(shared);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    Atomics.store(at, 0, i);
    clock[0] = Date.now();
    const answer = evaluate(r[0], r[1], r[2], r[3], r[4], r[5]);
    if (answer === 1) flags[i] = 1;
    else if (answer !== 0) {
      clock[0] = 0;
      const message = typeof answer === "string" ? answer.slice(1, 500) : "returned something that is not an answer";
      parentPort.postMessage({ failedAt: i, error: message });
      return;
    }
  }
  Atomics.store(at, 0, records.length);
  clock[0] = 0;
  parentPort.postMessage({ failedAt: null, error: null });
});
`;
