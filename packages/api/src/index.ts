export type { DataPlane } from "@lastword/dataplane";
export { verifyAuditChain } from "@lastword/db";
export { type ApiServer, type ApiServerOptions, createApiServer, TRPC_ENDPOINT } from "./api-server";
export { API_KEY_PREFIX, type Auth } from "./auth/auth";
export {
  logMailSender,
  type MailMessage,
  type MailSender,
  outboxMailSender,
  smtpMailSender,
} from "./auth/mail-sender";
export type { Identity } from "./auth/request-identity";
export { DEFAULT_API_KEY_SCOPES, ROLES, type Role, SCOPES, type Scope } from "./auth/scopes";
export { AppError, type AppErrorCode } from "./errors/app-error";
export type { Problem } from "./errors/problem";
export { REDIS_CLIENT_OPTIONS } from "./errors/redis-unavailable";
export {
  MAX_AUTH_BODY_BYTES,
  MAX_REST_BODY_BYTES,
  MAX_TRPC_BODY_BYTES,
} from "./http/body-limit";
export { type Envelope, envelopeSchema } from "./records/envelope";
export { murmur2, partitionForKey } from "./records/partitioner";
export { openApiDocument, REST_BASE_PATH } from "./rest/rest-handler";
export { MAX_REGISTRY_BODY_BYTES, SCHEMA_REGISTRY_BASE_PATH } from "./schema-registry/registry-http";
export type { ApiDeps, Clock } from "./services/api-deps";
export type { CreatedApiKey } from "./services/api-key.service";
export { SCHEMA_REGISTRY_TOPIC } from "./services/protected-topics";
export type { ProvisionedTenant } from "./services/provision.service";
export { type AppRouter, appRouter, type RouterInputs, type RouterOutputs } from "./trpc/app-router";
