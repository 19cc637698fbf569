-- AlterTable
ALTER TABLE "Worker" ADD COLUMN     "sessionLock" BOOLEAN NOT NULL DEFAULT false;
