-- CreateTable
CREATE TABLE "PartitionSample" (
    "partitionId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "sizeBytes" BIGINT NOT NULL,
    "dirtyBytes" BIGINT NOT NULL,
    "logEndOffset" BIGINT NOT NULL,
    "fetchedRecords" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "PartitionSample_pkey" PRIMARY KEY ("partitionId","at")
);

-- CreateTable
CREATE TABLE "GroupLagSample" (
    "groupId" TEXT NOT NULL,
    "topicId" TEXT NOT NULL,
    "partitionIndex" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "lag" BIGINT NOT NULL,

    CONSTRAINT "GroupLagSample_pkey" PRIMARY KEY ("groupId","topicId","partitionIndex","at")
);

-- CreateIndex
CREATE INDEX "GroupLagSample_topicId_at_idx" ON "GroupLagSample"("topicId", "at");

-- AddForeignKey
ALTER TABLE "PartitionSample" ADD CONSTRAINT "PartitionSample_partitionId_fkey" FOREIGN KEY ("partitionId") REFERENCES "Partition"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupLagSample" ADD CONSTRAINT "GroupLagSample_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "ConsumerGroup"("id") ON DELETE CASCADE ON UPDATE CASCADE;

