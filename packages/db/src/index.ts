export { type AuditTx, appendAuditEvent, verifyAuditChain } from "./audit-log";
export { cleanerRunFigures } from "./cleaner-run-figures";
export { createPrisma, DATABASE_TIMEOUTS, type PrismaClient } from "./client";
export { committedPosition } from "./committed-position";
export { databaseName, dropDatabase, ensureDatabase, withDatabase } from "./database-admin";
export { parseEnv } from "./env";
export * from "./generated/prisma/client";
export { listMigrations, MIGRATIONS_DIR, MigrationError, migrate } from "./migrate";
