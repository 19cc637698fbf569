-- AlterTable
ALTER TABLE "Invitation" ADD COLUMN     "tokenHash" TEXT;

