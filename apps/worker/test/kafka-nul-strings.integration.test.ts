import { createPrisma } from "@lastword/db";
import { ApiKey, type DecodedRequest, ErrorCode } from "@lastword/kafka-protocol";
import { describe, expect, it } from "vitest";
import { failureAnswer } from "../src/kafka/failure-answer";
import { RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// A well-framed request whose handler fails is answered on everything it named. Two failures have a
// better answer than UNKNOWN_SERVER_ERROR, which clients do not retry: a string Postgres cannot
// store (NUL in a group id) is the client's INVALID_REQUEST, and an unreachable Postgres is
// retriable (COORDINATOR_NOT_AVAILABLE for the group APIs, REQUEST_TIMED_OUT for the rest).

const ORG = "org_nul";
const world = useKafkaWorld({ name: "kafka-nul" }, ORG, {
  topics: { t: 1 },
  scopes: ["topics:read", "records:read", "groups:read", "groups:write"],
  keyOptions: { scram: false },
});

const asRequest = (apiKey: number) => ({ apiKey }) as DecodedRequest;

describe("a request whose handler fails", () => {
  it("FindCoordinator for a group id holding NUL is INVALID_REQUEST saying so, and the connection serves on", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const found = await raw.call(ApiKey.FindCoordinator, 3, { key: "g\u0000x", keyType: 0 });
    expect(found.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(found.errorMessage).toMatch(/NUL character/);
    const batched = await raw.call(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ["\u0000"] });
    expect(batched.coordinators.map((c: { errorCode: number }) => c.errorCode)).toEqual([
      ErrorCode.INVALID_REQUEST,
    ]);
    const fine = await raw.call(ApiKey.FindCoordinator, 3, { key: "a-group", keyType: 0 });
    expect(fine.errorCode).toBe(0);
    raw.close();
  });

  it("is answered by what failed: Postgres's own NUL refusal, an unreachable Postgres, anything else", async () => {
    const nul = await world.h.db.prisma.$queryRaw`SELECT ${"a\u0000b"}::text AS v`.catch(
      (error: unknown) => error,
    );
    expect(failureAnswer(asRequest(ApiKey.JoinGroup), nul)).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST,
      explained: true,
    });
    const nowhere = createPrisma("postgresql://postgres@127.0.0.1:1/lastword");
    const unreachable = await nowhere.$queryRaw`SELECT 1`.catch((error: unknown) => error);
    await nowhere.$disconnect();
    expect(failureAnswer(asRequest(ApiKey.FindCoordinator), unreachable).errorCode).toBe(
      ErrorCode.COORDINATOR_NOT_AVAILABLE,
    );
    expect(failureAnswer(asRequest(ApiKey.Metadata), unreachable).errorCode).toBe(
      ErrorCode.REQUEST_TIMED_OUT,
    );
    expect(failureAnswer(asRequest(ApiKey.Metadata), new Error("a bug"))).toMatchObject({
      errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
      explained: false,
    });
  });
});
