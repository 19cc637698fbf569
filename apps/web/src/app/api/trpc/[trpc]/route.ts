import { apiServer } from "@/server/api-server";
import { forEveryMethod } from "@/server/route-methods";

export const dynamic = "force-dynamic";

export const { GET, POST } = forEveryMethod((request) => apiServer().handleTrpc(request));
