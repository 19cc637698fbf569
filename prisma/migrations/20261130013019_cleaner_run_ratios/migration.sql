-- AlterTable
ALTER TABLE "CleanerRun" ADD COLUMN     "dirtyRatioAfter" DOUBLE PRECISION,
ADD COLUMN     "dirtyRatioBefore" DOUBLE PRECISION,
ADD COLUMN     "trigger" TEXT;

