import { Agent, request } from "node:http";
import { SECRET_HEADER } from "./protocol";

/** What came back, or why nothing did. `delivered: false` means the worker cannot have acted on it. */
export type TransportOutcome =
  | { kind: "response"; status: number; body: unknown }
  | { kind: "failed"; delivered: boolean; error: Error };

export interface TransportRequest {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | undefined>;
  /** JSON-encoded unless it is already a Buffer (sent with `contentType`). */
  body?: unknown;
  /** A binary body sent as these pieces one after another (views of a larger buffer: no copy). */
  parts?: readonly Uint8Array[];
  contentType?: string;
  /** Extra request headers (the idempotent produce's producer header). */
  headers?: Record<string, string>;
}

// Errors raised while connecting: the request never reached a worker, so resending it is safe.
const NOT_DELIVERED = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/** JSON over keep-alive HTTP/1.1 to worker data planes, with the shared secret on every request. */
export class HttpTransport {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 });
  readonly #secret: string;
  readonly #timeoutMs: number;

  constructor(secret: string, timeoutMs: number) {
    this.#secret = secret;
    this.#timeoutMs = timeoutMs;
  }

  send(address: string, req: TransportRequest): Promise<TransportOutcome> {
    const origin = this.#origin(address);
    let path = req.path;
    if (req.query) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(req.query)) {
        if (value !== undefined) query.set(name, String(value));
      }
      if (query.size > 0) path += `?${query}`;
    }
    const payload =
      req.body === undefined
        ? undefined
        : Buffer.isBuffer(req.body)
          ? req.body
          : Buffer.from(JSON.stringify(req.body));
    let length = payload?.length;
    if (req.parts) {
      length = 0;
      for (const part of req.parts) length += part.length;
    }
    const headers: Record<string, string | number> = {
      ...req.headers,
      [SECRET_HEADER]: this.#secret,
      accept: "application/json",
    };
    if (length !== undefined) {
      headers["content-type"] = req.contentType ?? "application/json";
      headers["content-length"] = length;
    }
    return new Promise((resolve) => {
      const outgoing = request({
        ...origin,
        path,
        method: req.method,
        agent: this.#agent,
        timeout: this.#timeoutMs,
        headers,
      });
      outgoing.on("response", (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", (error) => resolve({ kind: "failed", delivered: true, error }));
        incoming.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ kind: "response", status: incoming.statusCode ?? 0, body: parseJson(text) });
        });
      });
      outgoing.on("timeout", () =>
        outgoing.destroy(new Error(`no answer from ${address} in ${this.#timeoutMs} ms`)),
      );
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        resolve({ kind: "failed", delivered: !NOT_DELIVERED.has(error.code ?? ""), error });
      });
      if (req.parts) {
        // Corked: the pieces leave in one writev, with the headers, not one packet each.
        outgoing.cork();
        for (const part of req.parts) outgoing.write(part);
        outgoing.uncork();
        outgoing.end();
      } else outgoing.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }

  // A worker's address parsed once, not a URL built and taken apart again on every request.
  readonly #origins = new Map<string, { host: string; port: number }>();

  #origin(address: string): { host: string; port: number } {
    let origin = this.#origins.get(address);
    if (!origin) {
      const url = new URL(address);
      if (url.protocol !== "http:") throw new Error(`data plane addresses are http: URLs, not ${address}`);
      // node:http wants an IPv6 host without the URL's brackets.
      const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
      origin = { host, port: url.port === "" ? 80 : Number(url.port) };
      if (this.#origins.size >= 1024) this.#origins.clear();
      this.#origins.set(address, origin);
    }
    return origin;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
