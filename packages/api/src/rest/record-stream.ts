import type { FetchedRecord } from "@lastword/dataplane";
import {
  encodeErrorFrame,
  encodeOffsetsFrame,
  encodePartitionFrame,
  FRAMES_CONTENT_TYPE,
} from "@lastword/frames";
import { z } from "zod";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { problemToSend } from "../errors/unexpected-errors";
import { bytesToEnvelope, ENVELOPE_FORMATS, type EnvelopeFormat } from "../records/envelope";
import type { ApiDeps } from "../services/api-deps";
import { topicNameSchema } from "../services/topic.schema";
import { topicRouting } from "../services/topic.service";
import { protectedProcedure } from "../trpc/access";

/**
 * The two streaming REST routes. NDJSON by default (one record per line, then one line with the
 * offsets the records are consistent with: what curl users read); binary frames when the request
 * accepts `application/vnd.lastword.frames` (@lastword/frames: the workers' batches passed
 * on undecoded, what the typed client uses). Each is a procedure (its input schema is the route's
 * parameters and OpenAPI entry) that plans the stream behind the one access middleware; the REST
 * dispatch table (rest-routes.ts) calls it and answers with `streamResponse`.
 *
 *   GET /api/v1/topics/{topic}/records/stream?from=earliest|latest&offsets=0:120,1:98&waitMs=
 *   GET /api/v1/topics/{topic}/snapshot
 */
export const NDJSON_CONTENT_TYPE = "application/x-ndjson";
export const MAX_STREAM_WAIT_MS = 30_000;
const WAIT_POLL_MS = 100;

const offsetsParam = z
  .string()
  .regex(/^\d+:\d+(,\d+:\d+)*$/, "offsets must look like 0:120,1:98 (partition:offset pairs)")
  // Checked before the answer starts: past 2^53 - 1 a number is no longer exact, and the worker
  // would refuse it only once the 200 and its headers were gone (an error line, not a 400).
  .refine((text) => text.split(/[:,]/).every((n) => Number.isSafeInteger(Number(n))), {
    message: `offsets: partitions and offsets are at most ${Number.MAX_SAFE_INTEGER}`,
  })
  .transform(
    (text) => new Map(text.split(",").map((pair) => pair.split(":").map(Number) as [number, number])),
  );

const formatParam = z.enum(ENVELOPE_FORMATS).default("auto").meta({
  description: "NDJSON only: how envelopes show the bytes (binary frames carry the bytes themselves)",
});

/** The replay's query (and path): where each partition starts, the long poll, how NDJSON shows bytes. */
const replayQuery = z.object({
  topic: topicNameSchema,
  from: z.enum(["earliest", "latest"]).default("earliest"),
  offsets: offsetsParam
    .meta({
      description: "Resume: partition:offset pairs (e.g. 0:120,1:98); other partitions start at `from`",
    })
    .optional(),
  waitMs: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_STREAM_WAIT_MS)
    .default(0)
    .meta({ description: "Long poll: wait up to this long for a record past the start" }),
  keyFormat: formatParam,
  valueFormat: formatParam,
});

/** The snapshot's: the topic and the formats. */
const snapshotQuery = replayQuery.pick({ topic: true, keyFormat: true, valueFormat: true });

type StreamInput = z.infer<typeof replayQuery> & { mode: "replay" | "snapshot" };

interface StreamPlan {
  input: StreamInput;
  partitions: { index: number; id: string }[];
}

async function planStream(deps: ApiDeps, identity: Identity, input: StreamInput): Promise<StreamPlan> {
  // The cached routing produce uses: a consumer's replay, snapshot or tail keeps working while
  // Postgres is unreachable, like produce and reads (packages/api README, "Postgres outage").
  const routing = await topicRouting(deps, identity.tenantId, input.topic);
  const partitions = [...routing.partitionIds]
    .map(([index, id]) => ({ index, id }))
    .sort((a, b) => a.index - b.index);
  for (const index of input.offsets?.keys() ?? []) {
    if (index >= partitions.length) {
      throw new AppError("PARTITION_NOT_FOUND", `Topic "${input.topic}" has no partition ${index}.`, {
        details: { partition: index },
      });
    }
  }
  return { input, partitions };
}

// What the procedures hand the REST route that streams (rest/rest-routes.ts), in-process: the
// route answers the stream, never this object, so it is not described further.
const streamPlanOutput = z.object({
  input: z.any(),
  partitions: z.array(z.object({ index: z.number().int(), id: z.string() })),
});

/**
 * The two streaming routes as procedures: their parameters and OpenAPI entries come from the
 * schemas above, and they pass the one access middleware. They resolve the stream's plan; the
 * REST dispatch (rest/rest-routes.ts) answers with the stream itself (`streamResponse`).
 */
export const replayStreamProcedure = protectedProcedure("records:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/records/stream",
      operationId: "records-stream",
      tags: ["records"],
      summary: "Replay a topic: every retained record, partition after partition, then the offsets",
    },
  })
  .input(replayQuery)
  .output(streamPlanOutput)
  .query(({ ctx, input }) => planStream(ctx.deps, ctx.identity, { ...input, mode: "replay" }));

export const snapshotStreamProcedure = protectedProcedure("records:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/snapshot",
      operationId: "records-snapshot",
      tags: ["records"],
      summary: "Snapshot a topic: the latest live record of each key, then the offsets it is consistent with",
    },
  })
  .input(snapshotQuery)
  .output(streamPlanOutput)
  .query(({ ctx, input }) =>
    planStream(ctx.deps, ctx.identity, { ...input, mode: "snapshot", from: "earliest", waitMs: 0 }),
  );

function recordLine(partition: number, r: FetchedRecord, input: StreamInput): string {
  return JSON.stringify({
    partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: bytesToEnvelope(r.key, input.keyFormat),
    value: bytesToEnvelope(r.value, input.valueFormat as EnvelopeFormat),
    headers: r.headers.map((h) => ({ key: h.key, value: bytesToEnvelope(h.value, "auto") })),
  });
}

async function startOffsets(deps: ApiDeps, plan: StreamPlan): Promise<number[]> {
  return Promise.all(
    plan.partitions.map(async (p) => {
      const named = plan.input.offsets?.get(p.index);
      if (named !== undefined) return named;
      if (plan.input.from === "earliest") return 0;
      return (await deps.dataPlane.listOffsets({ partitionId: p.id })).latest;
    }),
  );
}

/** Long poll: returns once some partition has a record at or past its start, or the wait is over. */
async function waitForRecords(deps: ApiDeps, plan: StreamPlan, starts: number[]): Promise<void> {
  const deadline = Date.now() + plan.input.waitMs;
  while (Date.now() < deadline) {
    const ends = await Promise.all(
      plan.partitions.map((p) => deps.dataPlane.listOffsets({ partitionId: p.id }).then((o) => o.latest)),
    );
    if (ends.some((end, i) => end > starts[i]!)) return;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

/** What opens one partition's stream on its worker: from `offset` on, in the plan's mode. */
type PartitionStreamInput = { partitionId: string; mode: StreamPlan["input"]["mode"]; offset: number };

/**
 * Each partition's stream in partition order, the next one opened while the current one is read:
 * the worker starts on it (its headers, its first reads) instead of after the current one ends.
 * Streams opened and not read (the reader left, or failed) are closed.
 */
async function* partitionStreams<T>(
  plan: StreamPlan,
  starts: number[],
  open: (input: PartitionStreamInput) => AsyncIterable<T>,
): AsyncGenerator<{ index: number; items: AsyncGenerator<T> }> {
  const opened: { gen: AsyncIterator<T>; first: Promise<IteratorResult<T>> }[] = [];
  const start = (i: number) => {
    const input = { partitionId: plan.partitions[i]!.id, mode: plan.input.mode, offset: starts[i]! };
    const gen = open(input)[Symbol.asyncIterator]();
    const first = gen.next();
    // Read when its turn comes; until then a failure must not count as unhandled.
    first.catch(() => undefined);
    opened.push({ gen, first });
  };
  try {
    for (let i = 0; i < plan.partitions.length; i++) {
      if (i === 0) start(0);
      if (i + 1 < plan.partitions.length) start(i + 1);
      const { gen, first } = opened[i]!;
      yield {
        index: plan.partitions[i]!.index,
        items: (async function* () {
          for (let next = await first; !next.done; next = await gen.next()) yield next.value;
        })(),
      };
    }
  } finally {
    // Not awaited: a stream opened ahead may still be waiting for its worker's headers.
    for (const { gen, first } of opened) {
      first.then(() => gen.return?.()).catch(() => undefined);
    }
  }
}

async function* ndjsonLines(deps: ApiDeps, plan: StreamPlan, starts: number[]): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  const offsets: { partition: number; offset: number }[] = [];
  const open = (input: PartitionStreamInput) => deps.dataPlane.streamPartition(input);
  try {
    for await (const { index, items } of partitionStreams(plan, starts, open)) {
      for await (const frame of items) {
        if (frame.kind === "end") offsets.push({ partition: index, offset: frame.endOffset });
        else if (frame.records.length) {
          let chunk = "";
          for (const r of frame.records) chunk += `${recordLine(index, r, plan.input)}\n`;
          yield encoder.encode(chunk);
        }
      }
    }
  } catch (error) {
    // Headers are gone already: the failure becomes the last line, and no offsets line follows.
    yield encoder.encode(`${JSON.stringify({ error: problemToSend(error) })}\n`);
    return;
  }
  yield encoder.encode(`${JSON.stringify({ end: true, offsets })}\n`);
}

/**
 * The binary answer: each partition's worker frames (batch or stored) passed on as they arrived
 * (views of the worker's response chunks, no record decoded), behind a partition frame; the
 * offsets frame last.
 */
async function* binaryFrames(
  deps: ApiDeps,
  plan: StreamPlan,
  starts: number[],
): AsyncGenerator<Uint8Array | readonly Uint8Array[]> {
  const offsets: { partition: number; offset: number }[] = [];
  const open = (input: PartitionStreamInput) => deps.dataPlane.streamPartitionPieces(input);
  try {
    for await (const { index, items } of partitionStreams(plan, starts, open)) {
      yield encodePartitionFrame(index);
      for await (const piece of items) {
        if (piece.kind === "end") offsets.push({ partition: index, offset: piece.endOffset });
        else yield piece.parts;
      }
    }
  } catch (error) {
    // Frames arrive whole, so the error frame starts at a frame boundary; no offsets frame follows.
    yield encodeErrorFrame(problemToSend(error));
    return;
  }
  yield encodeOffsetsFrame(offsets);
}

/** Bytes read ahead of the HTTP client, so the hops keep flowing (yet bounded: backpressure). */
const READ_AHEAD_BYTES = 2 << 20;

/**
 * Pulled: the data plane is read only as fast as the HTTP client reads (plus READ_AHEAD_BYTES, and
 * at most one more frame: a frame's parts are queued together, one step of the generator each).
 */
function pullStream(chunks: AsyncGenerator<Uint8Array | readonly Uint8Array[]>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else if (next.value instanceof Uint8Array) controller.enqueue(next.value);
        else for (const part of next.value) controller.enqueue(part);
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: READ_AHEAD_BYTES }),
  );
}

/** Binary only when asked for by media type; anything else (curl's default `Accept`, or none) gets NDJSON. */
function wantsFrames(req: Request): boolean {
  return req.headers.get("accept")?.includes(FRAMES_CONTENT_TYPE) ?? false;
}

/** The streamed answer to a planned replay or snapshot (the plan a stream procedure returned). */
export async function streamResponse(req: Request, deps: ApiDeps, resolved: unknown): Promise<Response> {
  const plan = resolved as StreamPlan;
  const replay = plan.input.mode === "replay";
  const starts = replay ? await startOffsets(deps, plan) : plan.partitions.map(() => 0);
  if (replay && plan.input.waitMs > 0) await waitForRecords(deps, plan, starts);
  const binary = wantsFrames(req);
  const body = binary ? binaryFrames(deps, plan, starts) : ndjsonLines(deps, plan, starts);
  return new Response(pullStream(body), {
    status: 200,
    headers: {
      "content-type": binary ? FRAMES_CONTENT_TYPE : NDJSON_CONTENT_TYPE,
      "cache-control": "no-store",
      vary: "accept",
    },
  });
}
