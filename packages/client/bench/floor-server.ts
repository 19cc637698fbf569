/**
 * The transport floor of the cold-start bench: a process with no product code that holds the
 * segment files' bytes in memory and sends them whole to whoever connects, over plain HTTP (node
 * `http`) and over a bare TCP socket. What the client process reads from it is the least any
 * cold start through one loopback hop can cost here: no disk, no database, no framing, no second
 * hop through the web, no decoding, no Map. The bench sends `{ load: files }` over IPC and gets
 * `{ http, tcp, bytes }` (the ports and the byte count) once both servers listen.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import type { Writable } from "node:stream";

let chunks: Buffer[] = [];

/** Writes every chunk, waiting for the socket to drain (backpressure), then ends it. */
async function sendAll(out: Writable & { destroyed: boolean }) {
  for (const chunk of chunks) {
    if (!out.write(chunk)) await once(out, "drain");
    if (out.destroyed) return;
  }
  out.end();
}

const http = createHttpServer((_req, res) => {
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(bytes) });
  void sendAll(res);
});
const tcp = createTcpServer((socket: Socket) => void sendAll(socket));

const listen = (server: typeof http | typeof tcp) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

process.on("message", (message: { load: string[] }) => {
  chunks = message.load.map((file) => readFileSync(file));
  void Promise.all([listen(http), listen(tcp)]).then(([httpPort, tcpPort]) =>
    process.send?.({ http: httpPort, tcp: tcpPort, bytes: chunks.reduce((n, c) => n + c.length, 0) }),
  );
});
process.on("SIGTERM", () => process.exit(0));
console.log("ready");
