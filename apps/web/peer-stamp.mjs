/**
 * The TCP peer of each request, stamped by the web's server (server.mjs) as a header the API's
 * auth limits read (`handleAuth(request, { peerAddress })`, @lastword/api http/client-address.ts).
 * Next's route handlers see only headers, and Next passes a client's own X-Forwarded-For on as it
 * came: without this stamp, a client that writes a new X-Forwarded-For per request would be a new
 * client each time. Any value a client sends under this name is overwritten.
 */
export const PEER_ADDRESS_HEADER = "x-lastword-peer";

/** Sets PEER_ADDRESS_HEADER on a node:http request to its socket's remote address. */
export function stampPeerAddress(request) {
  const peer = request.socket.remoteAddress;
  if (peer) request.headers[PEER_ADDRESS_HEADER] = peer;
  else delete request.headers[PEER_ADDRESS_HEADER];
}
