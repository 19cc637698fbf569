import { describe, expect, it } from "vitest";
import { APP_ERROR_STATUS } from "./app-error";
import { isDatabaseUnreachable } from "./database-unavailable";
import { retryAfterSeconds, toProblem } from "./problem";

// Shapes as Prisma 7 with @prisma/adapter-pg throws them (recorded against a closed port and a
// relay that drops its sockets); the integration test meets the real ones.
function prismaKnown(code: string, adapterKind?: string) {
  const driverAdapterError = Object.assign(new Error(adapterKind ?? "postgres"), {
    name: "DriverAdapterError",
    cause: { kind: adapterKind ?? "postgres" },
  });
  return Object.assign(new Error("Invalid `prisma.x()` invocation"), {
    name: "PrismaClientKnownRequestError",
    code,
    meta: { driverAdapterError },
  });
}

describe("isDatabaseUnreachable", () => {
  it("recognises a refused, dropped or timed-out connection however it is wrapped", () => {
    expect(isDatabaseUnreachable(prismaKnown("P1001", "DatabaseNotReachable"))).toBe(true);
    // $queryRaw reports P2010 ("raw query failed"); the adapter's kind says why.
    expect(isDatabaseUnreachable(prismaKnown("P2010", "DatabaseNotReachable"))).toBe(true);
    expect(isDatabaseUnreachable(prismaKnown("P2010", "ConnectionClosed"))).toBe(true);
    expect(isDatabaseUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
    // node-postgres's own timeouts (query_timeout, a new connection's connect timeout).
    expect(isDatabaseUnreachable(new Error("Query read timeout"))).toBe(true);
    expect(isDatabaseUnreachable(new Error("timeout expired"))).toBe(true);
    const noTransaction = Object.assign(
      new Error("Transaction API error: Unable to start a transaction in the given time."),
      { name: "PrismaClientKnownRequestError", code: "P2028" },
    );
    expect(isDatabaseUnreachable(noTransaction)).toBe(true);
    expect(
      isDatabaseUnreachable(Object.assign(new Error("Transaction already closed"), { code: "P2028" })),
    ).toBe(false);
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(isDatabaseUnreachable(new Error("wrapped", { cause: refused }))).toBe(true);
    expect(isDatabaseUnreachable(Object.assign(new Error("shutting down"), { code: "57P01" }))).toBe(true);
  });

  it("leaves query failures alone", () => {
    expect(isDatabaseUnreachable(prismaKnown("P2002"))).toBe(false);
    expect(isDatabaseUnreachable(prismaKnown("P2010", "UniqueConstraintViolation"))).toBe(false);
    expect(isDatabaseUnreachable(Object.assign(new Error("syntax"), { code: "42601" }))).toBe(false);
    expect(isDatabaseUnreachable(new Error("boom"))).toBe(false);
    expect(isDatabaseUnreachable(null)).toBe(false);
  });

  it("is answered as a retriable 503 problem, not a 500", () => {
    const problem = toProblem(prismaKnown("P1001", "DatabaseNotReachable"));
    expect(problem).toMatchObject({ status: 503, code: "DATABASE_UNAVAILABLE" });
    expect(problem.detail).not.toMatch(/prisma|127\.0\.0\.1/i);
    expect(retryAfterSeconds(new Error("Connection terminated unexpectedly"))).toBeGreaterThan(0);
    expect(APP_ERROR_STATUS.DATABASE_UNAVAILABLE).toBe(503);
  });

  it("treats better-auth's cause-less FAILED_TO_GET_SESSION as the database failing", () => {
    const apiError = (code: string) =>
      Object.assign(new Error("Failed to get session"), {
        name: "APIError",
        statusCode: 500,
        body: { code },
      });
    expect(toProblem(apiError("FAILED_TO_GET_SESSION"))).toMatchObject({
      status: 503,
      code: "DATABASE_UNAVAILABLE",
    });
    expect(toProblem(apiError("SOMETHING_ELSE"))).toMatchObject({ status: 500, code: "INTERNAL" });
  });
});
