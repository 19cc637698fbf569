import { DataPlaneError, isDataPlaneErrorCode } from "@lastword/dataplane";
import { FrameFormatError } from "@lastword/frames";
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
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  // A log closed under a request means it is being reopened or handed over: the caller retries.
  if (code === "LOG_CLOSED") return new DataPlaneError("PARTITION_UNAVAILABLE", message, { cause: error });
  if (isDataPlaneErrorCode(code) && code !== "INTERNAL") {
    return new DataPlaneError(code, message, { cause: error });
  }
  return new DataPlaneError("INTERNAL", message, { cause: error });
}
