import { apiServer } from "@/server/api-server";

export const dynamic = "force-dynamic";

const handle = (request: Request): Promise<Response> => apiServer().handleRest(request);

export const DELETE = handle;
export const GET = handle;
export const HEAD = handle;
export const OPTIONS = handle;
export const PATCH = handle;
export const POST = handle;
export const PUT = handle;
