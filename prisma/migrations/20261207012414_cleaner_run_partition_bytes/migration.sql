-- AlterTable
ALTER TABLE "CleanerRun" ADD COLUMN     "bytesAfter" BIGINT,
ADD COLUMN     "bytesBefore" BIGINT;

