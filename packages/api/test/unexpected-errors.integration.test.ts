import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "../src/api-server";
import { outboxMailSender } from "../src/auth/mail-sender";
import { anotherWebProcess, rest, type Session, signUp, trpc, useHarness } from "./api-harness";

// A 500 says nothing internal to the caller; the operator needs the log line it belongs to. Each
// one is logged (pino, with the error's stack) under a request id the problem body carries.
const h = useHarness("unexpected_errors");
const lines: Record<string, unknown>[] = [];
let server: ApiServer;
let owner: Session;
let apiKey: string;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  server = anotherWebProcess(h, { logger: pino({ base: null }, sink), mailSender: outboxMailSender() });
  owner = await signUp(server, "owner@example.com", "Owner");
  const created = await trpc(server, { cookie: owner.cookie }, "mutation", "apiKeys.create", {
    name: "reader",
    scopes: ["topics:read"],
  });
  apiKey = (created.body.result!.data as { key: string }).key;
});

afterEach(async () => {
  await h.db.prisma.$executeRawUnsafe(`ALTER TABLE IF EXISTS "TopicMoved" RENAME TO "Topic"`);
});

/** A query the server does not expect to fail (not a lost connection, which is a 503): a missing table. */
const breakTopics = () => h.db.prisma.$executeRawUnsafe(`ALTER TABLE "Topic" RENAME TO "TopicMoved"`);

describe("unexpected errors", () => {
  it("log each REST 500 once with the request id its problem body carries, and reveal nothing", async () => {
    expect((await rest(server, { apiKey }, "GET", "/topics")).status).toBe(200);
    expect(lines).toEqual([]);
    await breakTopics();
    const first = await rest(server, { apiKey }, "GET", "/topics");
    const second = await rest(server, { apiKey }, "GET", "/topics");
    for (const res of [first, second]) {
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({
        code: "INTERNAL",
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(JSON.stringify(res.body)).not.toContain("TopicMoved");
      expect(JSON.stringify(res.body)).not.toContain('"Topic"');
    }
    expect(first.body.requestId).not.toBe(second.body.requestId);
    expect(lines.map((l) => l.requestId)).toEqual([first.body.requestId, second.body.requestId]);
    const [line] = lines;
    expect(line).toMatchObject({ level: 50, msg: "unexpected error: answered 500 INTERNAL" });
    const err = line!.err as { message: string; stack: string };
    expect(err.message).toMatch(/Topic/);
    expect(err.stack).toMatch(/at /);
  });

  it("log a console (tRPC) 500 once, though tRPC formats the error more than once", async () => {
    lines.length = 0;
    await breakTopics();
    const res = await trpc(server, { cookie: owner.cookie }, "query", "topics.list", {});
    expect(res.status).toBe(500);
    const problem = (res.body.error!.data as unknown as { problem: { code: string; requestId: string } })
      .problem;
    expect(problem.code).toBe("INTERNAL");
    expect(lines.map((l) => l.requestId)).toEqual([problem.requestId]);
  });

  it("give other problems no request id and write nothing", async () => {
    lines.length = 0;
    const res = await rest(server, { apiKey }, "GET", "/topics/nope");
    expect(res.status).toBe(404);
    expect(res.body.requestId).toBeUndefined();
    expect(lines).toEqual([]);
  });
});
