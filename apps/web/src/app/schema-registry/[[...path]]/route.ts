import { apiServer } from "@/server/api-server";

export const dynamic = "force-dynamic";

// Confluent's Schema Registry API for the caller's tenant (packages/api, schema-registry/).
const handle = (request: Request): Promise<Response> => apiServer().handleSchemaRegistry(request);

export const DELETE = handle;
export const GET = handle;
export const POST = handle;
export const PUT = handle;
