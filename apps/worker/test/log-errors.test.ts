import { DataPlaneError } from "@lastword/dataplane";
import { ObjectStoreError } from "@lastword/object-store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dataPlaneErrorOf } from "../src/hosting/log-errors";

class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

describe("data-plane error mapping", () => {
  it("passes log store codes through, not retriable", () => {
    const mapped = dataPlaneErrorOf(
      new CodedError("RECORD_TOO_LARGE", "batch of 2 MiB exceeds max.message.bytes"),
    );
    expect(mapped).toMatchObject({ code: "RECORD_TOO_LARGE", retriable: false });
    expect(mapped.message).toContain("max.message.bytes");
  });

  it("turns a log closed under a request into a retriable PARTITION_UNAVAILABLE", () => {
    expect(dataPlaneErrorOf(new CodedError("LOG_CLOSED", "closed"))).toMatchObject({
      code: "PARTITION_UNAVAILABLE",
      retriable: true,
    });
  });

  it("turns an object store that does not answer into a retriable PARTITION_UNAVAILABLE", () => {
    const down = new ObjectStoreError("UNAVAILABLE", "object storage unavailable for segments/p/0: HTTP 503");
    expect(dataPlaneErrorOf(down)).toMatchObject({ code: "PARTITION_UNAVAILABLE", retriable: true });
    expect(dataPlaneErrorOf(new ObjectStoreError("INVALID_KEY", "bad key")).code).toBe("INTERNAL");
  });

  it("reports bad input as BAD_REQUEST naming the field, and anything unknown as INTERNAL", () => {
    const parsed = z.object({ offset: z.number() }).safeParse({ offset: "x" });
    expect(dataPlaneErrorOf(parsed.error).message).toMatch(/^invalid request: offset: /);
    expect(dataPlaneErrorOf(new CodedError("ENOSPC", "no space")).code).toBe("INTERNAL");
    const own = new DataPlaneError("NOT_OWNER", "moved");
    expect(dataPlaneErrorOf(own)).toBe(own);
  });
});
