/**
 * The web's HTTP server (`npm start -w @lastword/web`): Next's own request handler, after one
 * step `next start` has no place for — each request is stamped with its TCP peer
 * (peer-stamp.mjs), the address the sign-in and sign-up limits are keyed on — and the
 * environment is checked before anything listens. Plain JavaScript, so it runs without a compile
 * step, as `next start` did. NODE_ENV is production (the start script sets it, as `next start`
 * does itself).
 */
import { createServer } from "node:http";
import next from "next";
import { stampPeerAddress } from "./peer-stamp.mjs";
// Node strips the types of this one module itself: no compile step here either.
import { serverEnv } from "./src/env.ts";

// Refuse to start, with the reason, on an environment the app would refuse at its first request
// (in production: a missing, public or patterned secret; anywhere: a malformed TRUST_PROXY).
try {
  serverEnv();
} catch (error) {
  console.error(`lastword web: not starting. ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}

// biome-ignore lint/style/noProcessEnv: the listening port is this server's own setting, as it was `next start`'s; the app's settings are src/env.ts's.
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
