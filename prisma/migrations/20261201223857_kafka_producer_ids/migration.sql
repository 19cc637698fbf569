-- CreateTable
CREATE TABLE "KafkaProducer" (
    "producerId" BIGSERIAL NOT NULL,
    "organizationId" TEXT NOT NULL,
    "epoch" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "KafkaProducer_pkey" PRIMARY KEY ("producerId")
);

-- CreateIndex
CREATE INDEX "KafkaProducer_organizationId_idx" ON "KafkaProducer"("organizationId");

-- AddForeignKey
ALTER TABLE "KafkaProducer" ADD CONSTRAINT "KafkaProducer_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Kafka producer ids stay below 2^52: the REST Idempotency-Key producer ids use [2^52, 2^53).
ALTER SEQUENCE "KafkaProducer_producerId_seq" MAXVALUE 4503599627370495;
