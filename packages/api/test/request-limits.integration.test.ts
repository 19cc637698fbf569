import { encodeProduceFrames } from "@lastword/client";
import { DataPlaneClient } from "@lastword/dataplane";
import { describe, expect, it } from "vitest";
import { MAX_AUTH_BODY_BYTES, MAX_REST_BODY_BYTES, MAX_TRPC_BODY_BYTES } from "../src/index";
import { MAX_KEY_BYTES } from "../src/records/key-limit";
import { PUBLIC_URL, rest, serveOverHttp, str } from "./api-harness";
import { useTenantWorld } from "./tenant-world";

const h = useTenantWorld("request_limits", {
  scopes: ["admin"],
  topics: [
    { name: "limits", partitions: 1, configs: { "cleanup.policy": "compact", "max.message.bytes": 1 << 20 } },
  ],
});

const MiB = 1024 * 1024;

/**
 * A body sent without Content-Length (chunked), `chunks` pieces of `chunkBytes`, counting how many
 * the server pulled: a capped reader stops soon after the cap instead of reading it all.
 */
function countedBody(chunks: number, chunkBytes: number) {
  const pulled = { count: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.count === chunks) return controller.close();
      pulled.count++;
      controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
    },
  });
  return { stream, pulled };
}

function streamed(url: string, headers: Record<string, string>, body: ReadableStream<Uint8Array>): Request {
  return new Request(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

async function expectTooLarge(response: Response): Promise<void> {
  expect(response.status).toBe(413);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(((await response.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE");
}

describe("request bodies are capped while they stream in", () => {
  it("tRPC: a 100 MiB body is a 413 after reading little more than the cap", async () => {
    const { stream, pulled } = countedBody(100, MiB);
    const res = await h.server.handleTrpc(
      streamed(`${PUBLIC_URL}/api/trpc/topics.create`, { "content-type": "application/json" }, stream),
    );
    await expectTooLarge(res);
    expect(pulled.count).toBeLessThanOrEqual(MAX_TRPC_BODY_BYTES / MiB + 2);
  });

  it("tRPC: a declared Content-Length over the cap is refused unread", async () => {
    const { stream, pulled } = countedBody(100, MiB);
    const headers = { "content-type": "application/json", "content-length": String(100 * MiB) };
    await expectTooLarge(
      await h.server.handleTrpc(streamed(`${PUBLIC_URL}/api/trpc/topics.create`, headers, stream)),
    );
    expect(pulled.count).toBeLessThanOrEqual(1);
  });

  it("better-auth: sign-in is capped before authentication, and a normal sign-in still works", async () => {
    const { stream, pulled } = countedBody(50, MiB);
    const url = `${PUBLIC_URL}/api/auth/sign-in/email`;
    const headers = { "content-type": "application/json", origin: PUBLIC_URL };
    await expectTooLarge(await h.server.handleAuth(streamed(url, headers, stream)));
    expect(pulled.count).toBeLessThanOrEqual(MAX_AUTH_BODY_BYTES / MiB + 2);
    const signIn = await h.server.handleAuth(
      new Request(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ email: h.email, password: h.password }),
      }),
    );
    expect(signIn.status).toBe(200);
  });

  it("REST: a JSON body over 8 MiB is 413 problem+json, in-process and over HTTP", async () => {
    const { stream, pulled } = countedBody(64, MiB);
    const headers = { authorization: `Bearer ${h.key}`, "content-type": "application/json" };
    await expectTooLarge(
      await h.server.handleRest(streamed(`${PUBLIC_URL}/api/v1/topics/limits/records`, headers, stream)),
    );
    expect(pulled.count).toBeLessThanOrEqual(MAX_REST_BODY_BYTES / MiB + 2);
    const http = await serveOverHttp((req) => h.server.handleRest(req));
    try {
      const body = JSON.stringify({
        records: [{ key: str("k"), value: str("x".repeat(MAX_REST_BODY_BYTES)) }],
      });
      await expectTooLarge(
        await fetch(`${http.url}/api/v1/topics/limits/records`, { method: "POST", headers, body }),
      );
    } finally {
      await http.close();
    }
  });
});

describe("one key size limit at every boundary", () => {
  const atLimit = "k".repeat(MAX_KEY_BYTES);
  const overLimit = "k".repeat(MAX_KEY_BYTES + 1);

  it("produce (JSON and binary) takes a key of MAX_KEY_BYTES and refuses one byte more", async () => {
    const ok = await rest(h.server, { apiKey: h.key }, "POST", "/topics/limits/records", {
      records: [{ key: str(atLimit), value: str("v") }],
    });
    expect(ok.status).toBe(200);
    const json = await rest(h.server, { apiKey: h.key }, "POST", "/topics/limits/records", {
      records: [{ key: str(overLimit), value: str("v") }],
    });
    expect(json.status).toBe(413);
    expect(json.body).toMatchObject({ code: "KEY_TOO_LARGE", path: "records[0].key" });
    const binary = await h.server.handleRest(
      new Request(`${PUBLIC_URL}/api/v1/topics/limits/records`, {
        method: "POST",
        headers: { authorization: `Bearer ${h.key}`, "content-type": "application/vnd.lastword.frames" },
        body: new Uint8Array(encodeProduceFrames([{ key: str(overLimit), value: str("v") }] as never)),
      }),
    );
    expect(binary.status).toBe(413);
    expect(((await binary.json()) as { code: string }).code).toBe("KEY_TOO_LARGE");
  });

  it("the key routes find a key of MAX_KEY_BYTES and refuse a longer one", async () => {
    const got = await rest(h.server, { apiKey: h.key }, "GET", `/topics/limits/keys/${atLimit}`);
    expect(got.status).toBe(200);
    const versions = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/limits/keys/${atLimit}/versions`,
    );
    expect(versions.status).toBe(200);
    const binary = Buffer.alloc(MAX_KEY_BYTES + 1, 0xff).toString("base64");
    const over = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/limits/keys/${encodeURIComponent(binary)}?keyType=base64`,
    );
    expect(over.status).toBe(413);
    expect(over.body.code).toBe("KEY_TOO_LARGE");
  });

  it("an erasure request refuses a subject key over the limit up front (no request is created)", async () => {
    const res = await rest(h.server, { apiKey: h.key }, "POST", "/erasure-requests", {
      keys: [str(overLimit)],
      topics: ["limits"],
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("KEY_TOO_LARGE");
    expect(await h.db.prisma.erasureRequest.count()).toBe(0);
  });

  it("the data plane carries keys in the request body: a 64 KiB key is looked up, not refused with 431", async () => {
    const dataPlane = new DataPlaneClient({ prisma: h.db.prisma, secret: h.secret });
    try {
      const partition = await h.db.prisma.partition.findFirstOrThrow({
        where: { topic: { name: "limits" } },
      });
      const key = Buffer.alloc(64 * 1024, 0x61);
      expect((await dataPlane.lookupKey({ partitionId: partition.id, key })).record).toBeNull();
      expect((await dataPlane.keyVersions({ partitionId: partition.id, key })).versions).toEqual([]);
      const found = await dataPlane.lookupKey({ partitionId: partition.id, key: Buffer.from(atLimit) });
      expect(found.record).not.toBeNull();
    } finally {
      dataPlane.close();
    }
  });
});

describe("stream offsets", () => {
  it("answers 400 before streaming for an offset past 2^53 - 1", async () => {
    for (const offsets of ["0:9007199254740992", "0:1e400", "9007199254740993:0"]) {
      const res = await h.server.handleRest(
        new Request(`${PUBLIC_URL}/api/v1/topics/limits/records/stream?offsets=${offsets}`, {
          headers: { authorization: `Bearer ${h.key}` },
        }),
      );
      expect(res.status, offsets).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
  });
});
