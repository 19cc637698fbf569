-- AlterTable
ALTER TABLE "ErasureTombstone" ADD COLUMN     "waitingFor" JSONB;

