import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import {
  DeleteBucketLifecycleCommand,
  PutBucketLifecycleConfigurationCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FsObjectStore,
  noncurrentExpiryDays,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
  openObjectStore,
  parseObjectStoreLocation,
  S3ObjectStore,
  STREAM_PART_BYTES,
} from "../src/index";

// One contract, two stores: the filesystem store in a temp dir and the S3 store against fauxqs, an
// S3-compatible server installed from npm and run in this process on a free port.

let server: FauxqsServer;
let dir: string;
const stores: Record<"fs" | "s3", ObjectStore> = {} as Record<"fs" | "s3", ObjectStore>;
const credentials = { accessKeyId: "test", secretAccessKey: "test" };

beforeAll(async () => {
  server = await startFauxqs({ port: 0, logger: false });
  server.createBucket("lastword-test");
  dir = await mkdtemp(join(tmpdir(), "lastword-objects-"));
  stores.fs = new FsObjectStore(join(dir, "objects"));
  stores.s3 = await openObjectStore(
    parseObjectStoreLocation(`s3://lastword-test/cluster-a?endpoint=${server.address}&forcePathStyle=true`),
    credentials,
  );
});

afterAll(async () => {
  await stores.s3?.close();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function all(iterable: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return "none";
  } catch (error) {
    if (error instanceof ObjectStoreError) return error.code;
    throw error;
  }
}

describe.each(["fs", "s3"] as const)("object store contract (%s)", (kind) => {
  const store = () => stores[kind];

  it("1. a put is read back whole and by range; a range past the end is empty", async () => {
    const body = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    const put = await store().put("p/0/seg-1", body);
    expect(put.size).toBe(3000);
    expect(await store().get("p/0/seg-1")).toEqual(body);
    expect(await store().get("p/0/seg-1", { offset: 100, length: 50 })).toEqual(body.subarray(100, 150));
    expect(await store().get("p/0/seg-1", { offset: 2990 })).toEqual(body.subarray(2990));
    expect(await store().get("p/0/seg-1", { offset: 2990, length: 100 })).toEqual(body.subarray(2990));
    expect((await store().get("p/0/seg-1", { offset: 3000 })).length).toBe(0);
    expect(await store().head("p/0/seg-1")).toMatchObject({ key: "p/0/seg-1", size: 3000 });
  });

  it("2. a missing object is NOT_FOUND on get and null on head; delete of one is not an error", async () => {
    expect(await codeOf(store().get("p/missing"))).toBe("NOT_FOUND");
    expect(await store().head("p/missing")).toBeNull();
    await store().delete("p/missing");
  });

  it("3. a replacing put changes the etag; delete removes the object from get and list", async () => {
    const first = await store().put("r/obj", Buffer.from("one"));
    const second = await store().put("r/obj", Buffer.from("two!"));
    expect(second.etag).not.toBe(first.etag);
    expect((await store().get("r/obj")).toString()).toBe("two!");
    await store().delete("r/obj");
    expect(await codeOf(store().get("r/obj"))).toBe("NOT_FOUND");
    expect((await all(store().list("r/"))).map((o) => o.key)).toEqual([]);
  });

  it("4. list returns every key under a prefix, in byte order, across pages (1,050 objects)", async () => {
    const keys = Array.from({ length: 1050 }, (_, i) => `l/${String(i).padStart(5, "0")}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((key) => store().put(key, Buffer.from(key))));
    }
    await store().put("lz/other", Buffer.from("x"));
    const listed = await all(store().list("l/"));
    expect(listed.map((o) => o.key)).toEqual(keys);
    expect(listed.every((o) => o.size === 7)).toBe(true);
  });

  it("5. keys outside the portable subset are refused before any I/O", async () => {
    for (const key of ["", "a//b", "../x", "a/./b", "a b", "a?b", "/lead", "trail/", "x".repeat(1025)]) {
      expect(await codeOf(store().put(key, Buffer.from("x")))).toBe("INVALID_KEY");
      expect(await codeOf(store().get(key))).toBe("INVALID_KEY");
    }
    expect(await codeOf(store().get("p/0/seg-1", { offset: -1 }))).toBe("INVALID_RANGE");
  });
});

/** `bytes` as a stream of 1 MiB chunks, as a file would be read. */
function chunked(bytes: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += 1 << 20) yield bytes.subarray(at, at + (1 << 20));
    })(),
  );
}

async function drain(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe.each(["fs", "s3"] as const)("streamed objects (%s)", (kind) => {
  const store = () => stores[kind];
  // Two and a half parts: S3 takes the multipart path; one byte under a part takes a single PUT.
  const big = Buffer.from(Array.from({ length: STREAM_PART_BYTES * 2.5 }, (_, i) => (i * 7) % 253));

  it("1. a streamed put of several parts reads back byte for byte, whole, by range and as a stream", async () => {
    const put = await store().putStream("s/big", chunked(big), big.length);
    expect(put.size).toBe(big.length);
    expect((await store().head("s/big"))?.size).toBe(big.length);
    expect((await store().get("s/big")).equals(big)).toBe(true);
    expect((await drain(await store().getStream("s/big"))).equals(big)).toBe(true);
    const range = { offset: STREAM_PART_BYTES - 3, length: 10 };
    expect(await drain(await store().getStream("s/big", range))).toEqual(
      big.subarray(range.offset, range.offset + 10),
    );
    expect((await drain(await store().getStream("s/big", { offset: big.length }))).length).toBe(0);
    const small = big.subarray(0, STREAM_PART_BYTES - 1);
    await store().putStream("s/small", chunked(small), small.length);
    expect((await store().get("s/small")).equals(small)).toBe(true);
  });

  it("2. a body shorter or longer than declared writes nothing; a missing object is NOT_FOUND before any byte", async () => {
    const body = big.subarray(0, STREAM_PART_BYTES + 100);
    await expect(store().putStream("s/short", chunked(body), body.length + 1)).rejects.toThrow(
      `declared ${body.length + 1} bytes and was given ${body.length}`,
    );
    await expect(store().putStream("s/long", chunked(body), body.length - 1)).rejects.toThrow(
      `declared ${body.length - 1} bytes and was given more`,
    );
    expect(await store().head("s/short")).toBeNull();
    expect(await store().head("s/long")).toBeNull();
    expect(await codeOf(store().getStream("s/missing"))).toBe("NOT_FOUND");
  });
});

describe("conditional streamed writes", () => {
  it("1. the filesystem store holds a streamed put to If-None-Match and If-Match like a put", async () => {
    const fs = stores.fs;
    const body = Buffer.alloc(3 << 20, 1);
    const first = await fs.putStream("cs/once", chunked(body), body.length, { ifNoneMatch: "*" });
    expect(await codeOf(fs.putStream("cs/once", chunked(body), body.length, { ifNoneMatch: "*" }))).toBe(
      "PRECONDITION_FAILED",
    );
    await fs.putStream("cs/once", chunked(Buffer.from("v2")), 2, { ifMatch: first.etag });
    expect(await codeOf(fs.putStream("cs/once", chunked(body), body.length, { ifMatch: first.etag }))).toBe(
      "PRECONDITION_FAILED",
    );
    expect((await fs.get("cs/once")).toString()).toBe("v2");
  });

  it("2. S3: the multipart completion carries the put's condition, and a refused one aborts the upload", async () => {
    // A proxy in front of fauxqs records every request and, when told, refuses the completion as a
    // server enforcing If-None-Match does (fauxqs ignores conditions: test 3 of "conditional writes").
    const seen: { method: string; url: string; ifNoneMatch?: string; ifMatch?: string }[] = [];
    let refuseCompletion = false;
    const target = new URL(server.address);
    const proxy: Server = createServer((req, res) => {
      const url = req.url ?? "";
      seen.push({
        method: req.method ?? "",
        url,
        ifNoneMatch: req.headers["if-none-match"] as string | undefined,
        ifMatch: req.headers["if-match"] as string | undefined,
      });
      if (refuseCompletion && req.method === "POST" && url.includes("uploadId=")) {
        req.resume();
        res.writeHead(412, { "content-type": "application/xml" });
        res.end(
          "<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>",
        );
        return;
      }
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const port = (proxy.address() as AddressInfo).port;
    const s3 = await openObjectStore(
      parseObjectStoreLocation(
        `s3://lastword-test/proxied?endpoint=http://127.0.0.1:${port}&forcePathStyle=true`,
      ),
      credentials,
    );
    try {
      seen.length = 0;
      await s3.putStream("cs/multi", chunked(big3()), big3().length, { ifNoneMatch: "*" });
      const parts = seen.filter((r) => r.method === "PUT" && r.url.includes("partNumber="));
      const complete = seen.filter((r) => r.method === "POST" && r.url.includes("uploadId="));
      expect(parts).toHaveLength(3);
      expect(complete).toEqual([expect.objectContaining({ ifNoneMatch: "*" })]);

      seen.length = 0;
      const etag = (await s3.head("cs/multi"))!.etag;
      await s3.putStream("cs/multi", chunked(big3()), big3().length, { ifMatch: etag });
      expect(seen.filter((r) => r.method === "POST" && r.url.includes("uploadId="))).toEqual([
        expect.objectContaining({ ifMatch: etag }),
      ]);

      seen.length = 0;
      refuseCompletion = true;
      expect(
        await codeOf(s3.putStream("cs/refused", chunked(big3()), big3().length, { ifNoneMatch: "*" })),
      ).toBe("PRECONDITION_FAILED");
      expect(seen.some((r) => r.method === "DELETE" && r.url.includes("uploadId="))).toBe(true);
      expect(await s3.head("cs/refused")).toBeNull();
    } finally {
      await s3.close();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

/** Three parts' worth (the last one short), built once. */
let big3Bytes: Buffer | undefined;
function big3(): Buffer {
  big3Bytes ??= Buffer.alloc(STREAM_PART_BYTES * 2 + 1000, 5);
  return big3Bytes;
}

describe("conditional writes", () => {
  it("1. the filesystem store enforces If-None-Match: of ten racing creators exactly one wins", async () => {
    const fs = stores.fs;
    expect(fs.conditionalWrites).toBe(true);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        codeOf(fs.put("c/once", Buffer.from(`writer ${i}`), { ifNoneMatch: "*" })),
      ),
    );
    expect(results.filter((r) => r === "none")).toHaveLength(1);
    expect(results.filter((r) => r === "PRECONDITION_FAILED")).toHaveLength(9);
  });

  it("2. the filesystem store enforces If-Match: a stale etag is refused and the object is unchanged", async () => {
    const fs = stores.fs;
    const first = await fs.put("c/swap", Buffer.from("v1"));
    const second = await fs.put("c/swap", Buffer.from("v2"), { ifMatch: first.etag });
    expect(await codeOf(fs.put("c/swap", Buffer.from("v3"), { ifMatch: first.etag }))).toBe(
      "PRECONDITION_FAILED",
    );
    expect((await fs.get("c/swap")).toString()).toBe("v2");
    expect(await codeOf(fs.put("c/none", Buffer.from("v"), { ifMatch: second.etag }))).toBe(
      "PRECONDITION_FAILED",
    );
  });

  it("3. the S3 store probes the server: fauxqs 2.4.1 ignores conditions, so the store says so", async () => {
    // A store that trusted the header would let a fencing test pass against a server that never
    // refuses; the probe's verdict is what callers read.
    expect(stores.s3.conditionalWrites).toBe(false);
  });
});

describe("what a store keeps of deleted objects", () => {
  it("1. the filesystem store keeps nothing", async () => {
    expect(await stores.fs.keptVersions()).toEqual({ versioning: "disabled", noncurrentExpiryDays: null });
  });

  it("2. the S3 store reads the lifecycle rule that expires noncurrent versions under its prefix", async () => {
    const client = new S3Client({
      region: "us-east-1",
      endpoint: server.address,
      forcePathStyle: true,
      credentials,
    });
    expect((await stores.s3.keptVersions()).noncurrentExpiryDays).toBeNull();
    await client.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: "lastword-test",
        LifecycleConfiguration: {
          Rules: [
            {
              ID: "other",
              Status: "Enabled",
              Filter: { Prefix: "cluster-b/" },
              NoncurrentVersionExpiration: { NoncurrentDays: 1 },
            },
            {
              ID: "ours",
              Status: "Enabled",
              Filter: { Prefix: "cluster-a" },
              NoncurrentVersionExpiration: { NoncurrentDays: 7 },
            },
          ],
        },
      }),
    );
    try {
      expect((await stores.s3.keptVersions()).noncurrentExpiryDays).toBe(7);
    } finally {
      await client.send(new DeleteBucketLifecycleCommand({ Bucket: "lastword-test" }));
      client.destroy();
    }
  });

  it("3. a rule covers the store's keys only if its prefix is one of theirs, its status enabled and no tag narrows it", () => {
    const rule = (prefix: string, days: number, extra: object = {}) => ({
      Status: "Enabled",
      Filter: { Prefix: prefix },
      NoncurrentVersionExpiration: { NoncurrentDays: days },
      ...extra,
    });
    expect(noncurrentExpiryDays([rule("", 30), rule("lastword/", 3)], "lastword/prod")).toBe(3);
    expect(noncurrentExpiryDays([rule("other/", 3)], "lastword/prod")).toBeNull();
    expect(noncurrentExpiryDays([{ ...rule("", 3), Status: "Disabled" }], "")).toBeNull();
    expect(
      noncurrentExpiryDays(
        [
          {
            Status: "Enabled",
            Filter: { And: { Prefix: "", Tags: [] } },
            NoncurrentVersionExpiration: { NoncurrentDays: 2 },
          },
        ],
        "",
      ),
    ).toBeNull();
    expect(
      noncurrentExpiryDays(
        [{ Status: "Enabled", Prefix: "", NoncurrentVersionExpiration: { NoncurrentDays: 5 } }],
        "x",
      ),
    ).toBe(5);
  });
});

describe("filesystem store crash safety", () => {
  it("1. temp and lock files a crashed writer left are never listed, and their names are not keys", async () => {
    const fs = stores.fs as FsObjectStore;
    await fs.put("t/real", Buffer.from("ok"));
    await writeFile(join(fs.root, "t", "real.tmp-deadbeef0000"), "torn");
    await writeFile(join(fs.root, "t", "real.lock"), "");
    expect((await all(fs.list("t/"))).map((o) => o.key)).toEqual(["t/real"]);
    expect(await codeOf(fs.put("t/x.lock", Buffer.from("x")))).toBe("INVALID_KEY");
    expect((await readdir(join(fs.root, "t"))).sort()).toEqual([
      "real",
      "real.lock",
      "real.tmp-deadbeef0000",
    ]);
  });
});

describe("locations", () => {
  it("1. paths and file:// URLs are the filesystem store; s3:// URLs carry bucket, prefix and endpoint", () => {
    expect(parseObjectStoreLocation("/var/lib/lastword/objects")).toEqual({
      kind: "fs",
      root: "/var/lib/lastword/objects",
    });
    expect(parseObjectStoreLocation("file:///srv/objects")).toEqual({ kind: "fs", root: "/srv/objects" });
    expect(
      parseObjectStoreLocation(
        "s3://bucket/a/b?region=eu-west-1&endpoint=http://minio:9000&forcePathStyle=true",
      ),
    ).toEqual({
      kind: "s3",
      bucket: "bucket",
      prefix: "a/b",
      region: "eu-west-1",
      endpoint: "http://minio:9000",
      forcePathStyle: true,
    });
  });

  it("2. other schemes, a missing bucket and unknown parameters are refused with a sentence", () => {
    expect(() => parseObjectStoreLocation("gs://bucket")).toThrow(/expected a path, file:\/\/ or s3:\/\//);
    expect(() => parseObjectStoreLocation("s3:///prefix")).toThrow(/names no bucket/);
    expect(() => parseObjectStoreLocation("s3://b?acl=public")).toThrow(/unknown parameter acl/);
  });

  it("3. a bucket that does not exist is UNAVAILABLE at open, naming the bucket and endpoint", async () => {
    const error = await S3ObjectStore.open({
      bucket: "no-such-bucket",
      region: "us-east-1",
      endpoint: server.address,
      forcePathStyle: true,
      credentials,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObjectStoreError);
    expect((error as ObjectStoreError).code).toBe("UNAVAILABLE");
    expect((error as Error).message).toContain("no-such-bucket");
  });
});
