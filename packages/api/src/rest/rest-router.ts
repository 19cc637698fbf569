import type { AnyTRPCRouter } from "@trpc/server";
import { produceFramesProcedure } from "../procedures/records/produce-frames";
import { mergeRouters, router } from "../trpc/trpc";
import { replayStreamProcedure, snapshotStreamProcedure } from "./record-stream";

/**
 * Procedures only REST serves: the two streams (their answers are streams, not JSON documents)
 * and the binary produce body. Not part of the console's tRPC router (`appRouter`); the REST
 * dispatch table and the OpenAPI document take them from here with the app's procedures.
 */
const restOnlyRouter = router({
  rest: router({
    replay: replayStreamProcedure,
    snapshot: snapshotStreamProcedure,
    produceFrames: produceFramesProcedure,
  }),
});

export const REST_ONLY = {
  replay: "rest.replay",
  snapshot: "rest.snapshot",
  produceFrames: "rest.produceFrames",
} as const;

/** What `/api/v1` serves and documents: the app's procedures and the REST-only ones above. */
export function restRouter(app: AnyTRPCRouter): AnyTRPCRouter {
  return mergeRouters(app, restOnlyRouter);
}
