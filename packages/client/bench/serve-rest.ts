import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * A node HTTP server on the REST handler (what apps/web mounts): the answer's chunks are written to
 * the socket as they come, waiting for it to drain (backpressure), without re-buffering them in a
 * node Readable (`Readable.fromWeb(...).pipe()` joins queued chunks: a copy of the whole stream).
 */
export function serveRest(handle: (req: Request) => Promise<Response>) {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = `http://${req.headers.host}${req.url}`;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    void handle(new Request(url, { method: req.method, headers })).then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return res.end();
      const reader = response.body.getReader();
      const closed = once(res, "close");
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (!res.write(value)) await Promise.race([once(res, "drain"), closed]);
          if (res.destroyed) return;
        }
        res.end();
      } finally {
        await reader.cancel().catch(() => undefined);
      }
    });
  });
}
