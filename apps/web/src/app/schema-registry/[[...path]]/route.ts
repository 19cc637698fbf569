import { apiServer } from "@/server/api-server";
import { forEveryMethod } from "@/server/route-methods";

export const dynamic = "force-dynamic";

// Confluent's Schema Registry API for the caller's tenant (packages/api, schema-registry/).
export const { DELETE, GET, POST, PUT } = forEveryMethod((request) =>
  apiServer().handleSchemaRegistry(request),
);
