-- Hand-edited: the generated diff dropped and re-added the status column, which would fail on any
-- existing row (NOT NULL without a default) or lose every pass's outcome. Instead the column is
-- converted in place: the labels are the words the rows already hold, and a row holding anything
-- else fails the migration rather than being rewritten.

-- CreateEnum
CREATE TYPE "CleanerRunStatus" AS ENUM ('running', 'completed', 'skipped', 'aborted', 'failed', 'abandoned');

-- AlterTable
ALTER TABLE "CleanerRun" ALTER COLUMN "status" TYPE "CleanerRunStatus" USING "status"::"CleanerRunStatus";
