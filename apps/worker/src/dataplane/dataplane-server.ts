import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DataPlaneError,
  type DescribeGroupsResponse,
  decodeProduceRecord,
  deleteRecordsRequestSchema,
  type ErrorBody,
  fetchQuerySchema,
  HTTP_STATUS_BY_CODE,
  keyRequestSchema,
  listOffsetsQuerySchema,
  matchDataPlaneRoute,
  PARTITION_ROUTES,
  type PartitionRoute,
  PRODUCE_RECORDS_MAX,
  PRODUCER_HEADER,
  type ProduceRecord,
  produceRequestSchema,
  producerHeaderSchema,
  SECRET_HEADER,
  streamQuerySchema,
  txnMarkerRequestSchema,
} from "@lastword/dataplane";
import {
  BINARY_RECORDS_CONTENT_TYPE,
  decodeBinaryRecords,
  FRAMES_CONTENT_TYPE,
  scanProduceFrames,
} from "@lastword/frames";
import type { CrashHook } from "../fault-points";
import { dataPlaneErrorOf } from "../hosting/log-errors";
import type { PartitionHost } from "../hosting/partition-host";
import type { TombstoneAudit } from "../hosting/tombstone-audit";
import { deleteRecords, produce, writeTxnMarker } from "../hosting/write-path";
import type { Logger } from "../logger";
import type { WorkerMetrics } from "../metrics/metrics";
import {
  type CleanerView,
  fetchRecords,
  listOffsets,
  listSegments,
  requestClean,
} from "./dataplane-handlers";
import { keyVersions, lookupKey } from "./key-handlers";
import { streamPartition } from "./snapshot-stream";

/** A produce body above this is refused before it is buffered (Kafka's default max request size is 100 MiB). */
export const MAX_REQUEST_BYTES = 100 << 20;

export interface DataPlaneServerOptions {
  host: PartitionHost;
  cleaner: CleanerView;
  audit: TombstoneAudit;
  metrics: WorkerMetrics;
  secret: string;
  workerId: string;
  logger: Logger;
  /** The tenant's Kafka groups this worker coordinates (none without a Kafka listener). */
  describeGroups(tenantId: string): DescribeGroupsResponse["groups"];
  /** Test-only crash points (LASTWORD_FAULT_POINT, fault-points.ts): the write path's `after-append`. */
  fault?: CrashHook;
}

/** The worker's internal HTTP endpoint; every route but /healthz requires the shared secret. */
export function createDataPlaneServer(options: DataPlaneServerOptions): Server {
  const secret = Buffer.from(options.secret);
  const server = createServer((req, res) => {
    void route(options, secret, req, res).catch((error: unknown) => sendError(options.logger, res, error));
  });
  // Longer than the client agent's idle timeout, so the client always closes idle sockets first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

/** Binds and answers the base URL actually bound (port 0 becomes the ephemeral port). */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const hostname = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  return `http://${hostname}:${bound.port}`;
}

/**
 * Stops accepting connections and lets in-flight requests finish for up to `drainMs`. A keep-alive
 * connection is closed as soon as it is idle between two requests (checked every 25 ms): a client
 * that keeps sending on it would otherwise hold the close open for as long as it sends. Whatever is
 * still open after `drainMs` is cut (the client sees a dropped connection and asks the new owner).
 */
export async function closeServer(server: Server, drainMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 25);
  const cut = setTimeout(() => server.closeAllConnections(), drainMs);
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(cut);
  }
}

async function route(
  options: DataPlaneServerOptions,
  secret: Buffer,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://worker");
  if (req.method === "GET" && url.pathname === "/healthz") {
    return sendJson(res, 200, { ok: true, workerId: options.workerId, partitions: options.host.size });
  }
  if (req.method === "GET" && url.pathname === "/metrics") {
    const text = await options.metrics.registry.metrics();
    res.writeHead(200, { "content-type": options.metrics.registry.contentType });
    res.end(text);
    return;
  }
  if (!authorized(req, secret)) throw new DataPlaneError("UNAUTHORIZED", `missing or wrong ${SECRET_HEADER}`);
  const matched = matchDataPlaneRoute(req.method ?? "", url.pathname);
  if (!matched) throw new DataPlaneError("BAD_REQUEST", `no route ${req.method} ${url.pathname}`);
  if (matched.kind === "groups") {
    const body: DescribeGroupsResponse = {
      workerId: options.workerId,
      groups: options.describeGroups(matched.tenantId),
    };
    return sendJson(res, 200, body);
  }
  const { route, partitionId } = matched;
  const query = Object.fromEntries(url.searchParams);
  if (route === "stream") {
    return streamPartition(options.host, partitionId, streamQuerySchema.parse(query), res);
  }
  const endTimer = options.metrics.requestSeconds.startTimer({ op: PARTITION_ROUTES[route].segment });
  try {
    if (route === "records") {
      // Streamed: the handler writes the frames itself.
      const sent = await fetchRecords(
        options.host,
        partitionId,
        fetchQuerySchema.parse(query),
        res,
        options.logger,
      );
      options.metrics.records.inc({ op: "fetch" }, sent);
      options.metrics.fetched.add(partitionId, sent);
      endTimer({ outcome: "ok" });
      return;
    }
    sendJson(res, 200, await dispatch(options, route, partitionId, query, req));
    endTimer({ outcome: "ok" });
  } catch (error) {
    endTimer({ outcome: "error" });
    throw error;
  }
}

async function dispatch(
  options: DataPlaneServerOptions,
  route: Exclude<PartitionRoute, "records" | "stream">,
  partitionId: string,
  query: Record<string, string>,
  req: IncomingMessage,
): Promise<unknown> {
  const { host, cleaner, metrics } = options;
  switch (route) {
    case "produce": {
      // The body is read while the fencing check runs. If the check fails first, the error is sent
      // only once the body is in: answering mid-upload would break the connection, and the client
      // could no longer tell a clean NOT_OWNER (safe to resend) from a lost request.
      const body = readProduceBody(req);
      const settled = body.then(
        () => undefined,
        () => undefined,
      );
      try {
        const producerHeader = req.headers[PRODUCER_HEADER];
        const producer =
          producerHeader === undefined ? undefined : producerHeaderSchema.parse(producerHeader);
        const answer = await produce(host, options.audit, partitionId, body, {
          producer,
          fault: options.fault,
        });
        if (!answer.duplicate) metrics.records.inc({ op: "produce" }, answer.count);
        // The data plane's answer (protocol.ts): the log start is for Kafka's Produce answer only.
        const { logStartOffset: _, ...response } = answer;
        return response;
      } catch (error) {
        await settled;
        throw error;
      }
    }
    case "offsets":
      return listOffsets(host, partitionId, listOffsetsQuerySchema.parse(query));
    case "segments":
      return listSegments(host, cleaner, partitionId);
    case "clean":
      return requestClean(host, cleaner, partitionId);
    case "deleteRecords": {
      const body = readBody(req).then((raw) => deleteRecordsRequestSchema.parse(parseJson(raw)).beforeOffset);
      // Awaited only after the fencing check; if that fails first, a bad body must not go unhandled.
      body.catch(() => undefined);
      return deleteRecords(host, partitionId, body);
    }
    case "lookupKey":
      return lookupKey(host, partitionId, await readKey(req));
    case "keyVersions":
      return keyVersions(host, partitionId, await readKey(req));
    case "txnMarker": {
      const marker = txnMarkerRequestSchema.parse(parseJson(await readBody(req)));
      // Stamped by the partition's owner, as Kafka's leader stamps the markers it appends.
      await writeTxnMarker(host, partitionId, { ...marker, timestampMs: host.clock.now() });
      return { ok: true };
    }
  }
}

function authorized(req: IncomingMessage, secret: Buffer): boolean {
  const given = req.headers[SECRET_HEADER];
  if (typeof given !== "string") return false;
  const bytes = Buffer.from(given);
  return bytes.length === secret.length && timingSafeEqual(bytes, secret);
}

/** A produce body: binary (what DataPlaneClient sends) or JSON with base64 bytes (handy by hand). */
async function readProduceBody(req: IncomingMessage): Promise<ProduceRecord[]> {
  const body = await readBody(req);
  const type = req.headers["content-type"];
  if (type?.startsWith(BINARY_RECORDS_CONTENT_TYPE)) return decodeBinaryRecords(body, PRODUCE_RECORDS_MAX);
  // A binary REST produce body's batch frames, forwarded by the web as they are.
  if (type?.startsWith(FRAMES_CONTENT_TYPE))
    return scanProduceFrames(body, { maxRecords: PRODUCE_RECORDS_MAX, partitionFrames: false }).decode()
      .records;
  return produceRequestSchema.parse(parseJson(body)).records.map(decodeProduceRecord);
}

/** The key of a key lookup's body (key-protocol.ts keyRequestSchema). */
async function readKey(req: IncomingMessage): Promise<Buffer> {
  const { key } = keyRequestSchema.parse(parseJson(await readBody(req)));
  return Buffer.from(key, "base64");
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new DataPlaneError("BAD_REQUEST", "request body is not JSON");
  }
}

/** The whole body; 'data' events rather than an async iterator (no promise per chunk on the produce path). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_REQUEST_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        req.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

function tooLarge(): DataPlaneError {
  return new DataPlaneError("RECORD_TOO_LARGE", `request body exceeds ${MAX_REQUEST_BYTES} bytes`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { "content-type": "application/json", "content-length": payload.length });
  res.end(payload);
}

function sendError(logger: Logger, res: ServerResponse, error: unknown): void {
  const failure = dataPlaneErrorOf(error);
  if (failure.code === "INTERNAL") logger.error({ err: error }, "data plane request failed");
  const body: ErrorBody = {
    code: failure.code,
    message: failure.message,
    retriable: failure.retriable,
    ...(failure.writeMayHaveHappened && { writeMayHaveHappened: true }),
  };
  if (res.headersSent) {
    res.destroy(failure);
    return;
  }
  sendJson(res, HTTP_STATUS_BY_CODE[failure.code], body);
}
