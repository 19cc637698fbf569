import { apiServer } from "@/server/api-server";
import { forEveryMethod } from "@/server/route-methods";
import { PEER_ADDRESS_HEADER } from "../../../../../peer-stamp.mjs";

export const dynamic = "force-dynamic";

// The sign-in and sign-up limits key on the TCP peer, which only the web's server knows: it
// stamps every request with it (server.mjs), overwriting whatever a client sent under that name.
export const { GET, POST } = forEveryMethod((request) =>
  apiServer().handleAuth(request, { peerAddress: request.headers.get(PEER_ADDRESS_HEADER) ?? undefined }),
);
