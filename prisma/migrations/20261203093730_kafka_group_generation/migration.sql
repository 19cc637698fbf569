-- AlterTable
ALTER TABLE "KafkaGroup" ADD COLUMN     "generation" INTEGER NOT NULL DEFAULT 0;

