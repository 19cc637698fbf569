-- AlterTable
ALTER TABLE "ErasureTombstone" ADD COLUMN     "missedBy" JSONB;

