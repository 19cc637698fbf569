-- CreateTable
CREATE TABLE "KafkaClientSeen" (
    "topicId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "softwareName" TEXT NOT NULL,
    "softwareVersion" TEXT NOT NULL,
    "lastSeenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "KafkaClientSeen_pkey" PRIMARY KEY ("topicId","role","clientId","softwareName","softwareVersion")
);

-- CreateIndex
CREATE INDEX "KafkaClientSeen_topicId_lastSeenAt_idx" ON "KafkaClientSeen"("topicId", "lastSeenAt");

-- AddForeignKey
ALTER TABLE "KafkaClientSeen" ADD CONSTRAINT "KafkaClientSeen_topicId_fkey" FOREIGN KEY ("topicId") REFERENCES "Topic"("id") ON DELETE CASCADE ON UPDATE CASCADE;

