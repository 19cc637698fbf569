import { createHash } from "node:crypto";
import { FrameFormatError, scanProduceFrames } from "@lastword/frames";
import { z } from "zod";
import { AppError } from "../../errors/app-error";
import { keyTooLarge, MAX_KEY_BYTES } from "../../records/key-limit";
import { once } from "../../services/idempotency.service";
import { MAX_RECORDS_PER_PRODUCE } from "../../services/produce-records.schema";
import { MAX_HEADER_KEY_LENGTH, MAX_HEADERS_PER_RECORD } from "../../services/record.schema";
import {
  everyRecordWritten,
  type FramesBatch,
  type ProduceBatch,
  produceBatch,
} from "../../services/record.service";
import { topicNameSchema } from "../../services/topic.schema";
import { protectedProcedure } from "../../trpc/access";

const framesProduceInput = z.object({ topic: topicNameSchema, body: z.instanceof(Buffer) });

/**
/**
 * The binary body checked with the JSON body schema's limits (@lastword/frames owns the format and
 * its one decoder): a body whose records share one partition setting stays as its frames (sent to
 * the worker as they are when that settles the partition), any other is decoded to records.
 */
function decodeBody(body: Buffer): ProduceBatch | FramesBatch {
  try {
    const frames = scanProduceFrames(body, {
      maxRecords: MAX_RECORDS_PER_PRODUCE,
      maxHeadersPerRecord: MAX_HEADERS_PER_RECORD,
      maxHeaderNameLength: MAX_HEADER_KEY_LENGTH,
      maxKeyBytes: MAX_KEY_BYTES,
    });
    return frames.partitionRuns > 1 ? frames.decode() : frames;
  } catch (error) {
    if (!(error instanceof FrameFormatError)) throw error;
    const { keyBytes, index } = error.details;
    if (keyBytes !== undefined) throw keyTooLarge(keyBytes, `records[${index}].key`);
    const code = error.reason === "malformed" ? "MALFORMED_REQUEST" : "INVALID_INPUT";
    const details = Object.keys(error.details).length > 0 ? { details: error.details } : {};
    throw new AppError(code, error.message, details);
  }
}

/**
 * `POST /topics/{topic}/records` with a binary body (`application/vnd.lastword.frames`): the REST
 * dispatch table (rest/rest-routes.ts) sends that route's frames body here instead of to
 * `records.produce`. The same access middleware (scope records:write, tenant, request rate) and the
 * same produce service (quota, usage, per-record answers) as `records.produce`, with the same
 * Idempotency-Key handling; only the decoding differs. The decode runs after the access checks, as
 * the JSON body's validation does. No `openapi` meta: the produce route's document lists this body
 * beside JSON.
 */
export const produceFramesProcedure = protectedProcedure("records:write", { countsRequestInAdmission: true })
  .input(framesProduceInput)
  .mutation(({ ctx, input }) => {
    const batch = decodeBody(input.body);
    const key = ctx.headers.get("idempotency-key");
    // The body's digest stands for the request (the same key with other bytes is refused); only
    // hashed when there is a key: it costs ~0.3 ms per 500 KiB, a tenth of the data-plane hop.
    const frames = key === null ? null : createHash("sha256").update(input.body).digest("hex");
    return once(
      ctx.deps,
      { tenantId: ctx.identity.tenantId, scope: "produce", key, request: { topic: input.topic, frames } },
      () => produceBatch(ctx.deps, ctx.identity, input.topic, batch, key),
      everyRecordWritten,
    );
  });
