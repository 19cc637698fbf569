-- AlterTable
ALTER TABLE "Partition" ADD COLUMN     "leaderEpochs" JSONB;

