import { createHash } from "node:crypto";
import { z } from "zod";
import { decodeProduceFrames } from "../../records/produce-frames";
import { once } from "../../services/idempotency.service";
import { produceBatch } from "../../services/record.service";
import { protectedProcedure } from "../../trpc/access";
import { topicNameSchema } from "../topics/topic.schema";
import { MAX_RECORDS_PER_PRODUCE } from "./produce-records.schema";

const framesProduceInput = z.object({ topic: topicNameSchema, body: z.instanceof(Buffer) });

/**
 * `POST /topics/{topic}/records` with a binary body (records/produce-frames.ts): the REST dispatch
 * table (rest/rest-routes.ts) sends that route's frames body here instead of to `records.produce`.
 * The same access middleware (scope records:write, tenant, request rate) and the same produce
 * service (quota, usage, per-record answers) as `records.produce`, with the same Idempotency-Key
 * handling; only the decoding differs. The decode runs after the access checks, as the JSON body's
 * validation does. No `openapi` meta: the produce route's document lists this body beside JSON.
 */
export const produceFramesProcedure = protectedProcedure("records:write", { countsRequestInAdmission: true })
  .input(framesProduceInput)
  .mutation(({ ctx, input }) => {
    const batch = decodeProduceFrames(input.body, MAX_RECORDS_PER_PRODUCE);
    const key = ctx.headers.get("idempotency-key");
    // The body's digest stands for the request (the same key with other bytes is refused); only
    // hashed when there is a key: it costs ~0.3 ms per 500 KiB, a tenth of the data-plane hop.
    const frames = key === null ? null : createHash("sha256").update(input.body).digest("hex");
    return once(
      ctx.deps,
      { tenantId: ctx.identity.tenantId, scope: "produce", key, request: { topic: input.topic, frames } },
      () => produceBatch(ctx.deps, ctx.identity, input.topic, batch),
    );
  });
