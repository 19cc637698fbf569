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
    const url = new URL(req.path, address);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
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
      [SECRET_HEADER]: this.#secret,
      accept: "application/json",
    };
    if (length !== undefined) {
      headers["content-type"] = req.contentType ?? "application/json";
      headers["content-length"] = length;
    }
    return new Promise((resolve) => {
      const outgoing = request(url, {
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
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
