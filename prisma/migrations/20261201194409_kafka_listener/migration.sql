-- AlterTable
ALTER TABLE "Topic" ADD COLUMN     "kafkaTopicId" UUID NOT NULL DEFAULT gen_random_uuid();

-- AlterTable
ALTER TABLE "Worker" ADD COLUMN     "kafkaHost" TEXT,
ADD COLUMN     "kafkaPort" INTEGER,
ADD COLUMN     "nodeId" SERIAL NOT NULL;

-- CreateTable
CREATE TABLE "KafkaScramCredential" (
    "apiKeyId" TEXT NOT NULL,
    "mechanism" TEXT NOT NULL,
    "salt" BYTEA NOT NULL,
    "iterations" INTEGER NOT NULL,
    "storedKey" BYTEA NOT NULL,
    "serverKey" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KafkaScramCredential_pkey" PRIMARY KEY ("apiKeyId","mechanism")
);

-- CreateIndex
CREATE UNIQUE INDEX "Topic_kafkaTopicId_key" ON "Topic"("kafkaTopicId");

-- CreateIndex
CREATE UNIQUE INDEX "Worker_nodeId_key" ON "Worker"("nodeId");

-- AddForeignKey
ALTER TABLE "KafkaScramCredential" ADD CONSTRAINT "KafkaScramCredential_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE CASCADE ON UPDATE CASCADE;

