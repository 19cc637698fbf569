import { DataPlaneError, isDataPlaneErrorCode } from "@lastword/dataplane";
import { FrameFormatError } from "@lastword/frames";
import { ObjectStoreError } from "@lastword/object-store";
import { ZodError } from "zod";

/**
 * Turns whatever a request raised into the data plane's error: our own DataPlaneErrors as they are,
 * the log store's coded errors passed through by code, bad input as BAD_REQUEST, the rest INTERNAL.
 */
export function dataPlaneErrorOf(error: unknown): DataPlaneError {
  if (error instanceof DataPlaneError) return error;
  if (error instanceof FrameFormatError) {
    return new DataPlaneError("BAD_REQUEST", `invalid produce body: ${error.message}`);
  }
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return new DataPlaneError("BAD_REQUEST", `invalid request: ${where}${issue?.message ?? "malformed"}`);
  }
  // An object deleted under a reader that held an older manifest (an erasure deletes the objects
  // holding the erased key at once): the partition's current objects answer the retry.
  if (error instanceof ObjectStoreError && error.code === "NOT_FOUND") {
    return new DataPlaneError(
      "PARTITION_UNAVAILABLE",
      `${error.message}: the object was replaced (a cleaner pass or an erasure); retry`,
      { cause: error },
    );
  }
  // The store not answering (an evicted segment's read, a rebuild): nothing is wrong with the
  // partition, so the caller retries rather than hearing of an internal error.
  if (error instanceof ObjectStoreError && error.code === "UNAVAILABLE") {
    return new DataPlaneError("PARTITION_UNAVAILABLE", `${error.message}; retry`, { cause: error });
  }
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  // A log closed under a request means it is being reopened or handed over: the caller retries.
  if (code === "LOG_CLOSED") return new DataPlaneError("PARTITION_UNAVAILABLE", message, { cause: error });
  if (isDataPlaneErrorCode(code) && code !== "INTERNAL") {
    return new DataPlaneError(code, message, { cause: error });
  }
  return new DataPlaneError("INTERNAL", message, { cause: error });
}
