ALTER TABLE "Worker" ADD COLUMN "kafkaConnections" JSONB;
