-- AlterTable
ALTER TABLE "Worker" ADD COLUMN     "objectStore" JSONB;

