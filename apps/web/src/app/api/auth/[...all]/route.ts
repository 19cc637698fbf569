import { apiServer } from "@/server/api-server";

export const dynamic = "force-dynamic";

const handle = (request: Request): Promise<Response> => apiServer().handleAuth(request);

export const GET = handle;
export const POST = handle;
