-- CreateEnum
CREATE TYPE "PartitionObjectKind" AS ENUM ('commit', 'segment');

-- AlterTable
ALTER TABLE "Partition" ADD COLUMN     "durableEndOffset" BIGINT;

-- CreateTable
CREATE TABLE "PartitionObject" (
    "id" BIGSERIAL NOT NULL,
    "partitionId" TEXT NOT NULL,
    "kind" "PartitionObjectKind" NOT NULL,
    "objectKey" TEXT NOT NULL,
    "position" BIGINT NOT NULL,
    "byteSize" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "baseOffset" BIGINT NOT NULL,
    "lastOffset" BIGINT NOT NULL,
    "epoch" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PartitionObject_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PartitionObject_objectKey_idx" ON "PartitionObject"("objectKey");

-- CreateIndex
CREATE UNIQUE INDEX "PartitionObject_partitionId_baseOffset_key" ON "PartitionObject"("partitionId", "baseOffset");

-- AddForeignKey
ALTER TABLE "PartitionObject" ADD CONSTRAINT "PartitionObject_partitionId_fkey" FOREIGN KEY ("partitionId") REFERENCES "Partition"("id") ON DELETE CASCADE ON UPDATE CASCADE;

