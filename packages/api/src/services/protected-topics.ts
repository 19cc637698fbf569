import { AppError } from "../errors/app-error";

/**
 * Each tenant's schema registry keeps its state in this compacted topic of the tenant's (as
 * Confluent's `_schemas`). It is listed and readable like any topic, but only the registry writes
 * it: clients may not create, produce to, reconfigure, repartition, erase from or delete it, over
 * REST or Kafka.
 */
export const SCHEMA_REGISTRY_TOPIC = "_schemas";

export function isProtectedTopic(name: string): boolean {
  return name === SCHEMA_REGISTRY_TOPIC;
}

/** Refuses `action` on a protected topic (403 FORBIDDEN; Kafka: TOPIC_AUTHORIZATION_FAILED). */
export function assertNotProtected(name: string, action: string): void {
  if (!isProtectedTopic(name)) return;
  throw new AppError(
    "FORBIDDEN",
    `Topic "${name}" holds the schema registry's state: only the registry (/schema-registry) writes it, so it cannot be ${action}.`,
    { details: { topic: name } },
  );
}
