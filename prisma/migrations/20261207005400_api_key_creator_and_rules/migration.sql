-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "createdByUserId" TEXT;

-- CreateTable
CREATE TABLE "ApiKeyRule" (
    "id" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "resourceType" TEXT NOT NULL,
    "patternType" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKeyRule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiKeyRule_apiKeyId_resourceType_patternType_name_operation_key" ON "ApiKeyRule"("apiKeyId", "resourceType", "patternType", "name", "operation");

-- CreateIndex
CREATE INDEX "ApiKey_referenceId_createdByUserId_idx" ON "ApiKey"("referenceId", "createdByUserId");

-- AddForeignKey
ALTER TABLE "ApiKeyRule" ADD CONSTRAINT "ApiKeyRule_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill: keys recorded their creator in better-auth's metadata (a JSON object, sometimes stored
-- as a JSON string of it); the column is what every check reads from now on.
UPDATE "ApiKey" SET "createdByUserId" = (
  CASE jsonb_typeof("metadata"::jsonb)
    WHEN 'string' THEN ("metadata"::jsonb #>> '{}')::jsonb
    ELSE "metadata"::jsonb
  END
) ->> 'createdByUserId'
WHERE "metadata" LIKE '%createdByUserId%';
