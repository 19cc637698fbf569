/**
 * The web's HTTP server (`npm start -w @lastword/web`): Next's own request handler, after one
 * step `next start` has no place for — each request is stamped with its TCP peer
 * (peer-stamp.mjs), the address the sign-in and sign-up limits are keyed on. Plain JavaScript,
 * so it runs without a compile step, as `next start` did. NODE_ENV is production (the start
 * script sets it, as `next start` does itself).
 */
import { createServer } from "node:http";
import next from "next";
import { stampPeerAddress } from "./peer-stamp.mjs";

// biome-ignore lint/style/noProcessEnv: the port is this server's only setting and must be read before Next (and src/env.ts) loads; the rest is src/env.ts's.
const port = Number(process.env.PORT ?? 3000);
const app = next({ dev: false, dir: import.meta.dirname, port });
await app.prepare();
const handle = app.getRequestHandler();

createServer((request, response) => {
  stampPeerAddress(request);
  void handle(request, response);
}).listen(port, () => {
  console.log(`lastword web: listening on port ${port}`);
});
