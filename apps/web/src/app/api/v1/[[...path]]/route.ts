import { apiServer } from "@/server/api-server";
import { forEveryMethod } from "@/server/route-methods";

export const dynamic = "force-dynamic";

export const { DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT } = forEveryMethod((request) =>
  apiServer().handleRest(request),
);
