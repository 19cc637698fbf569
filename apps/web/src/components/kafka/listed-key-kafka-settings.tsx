"use client";

import { useQuery } from "@tanstack/react-query";
import { useConsoleAccess } from "@/lib/console-access";
import { useTRPC } from "@/lib/trpc";
import { KafkaClientSettings } from "./kafka-client-settings";

/**
 * Kafka client settings for one of the tenant's existing keys (their secrets are gone, so the
 * password is a placeholder). Without keys:read the key list is not asked for, and the settings
 * name a placeholder key.
 */
export function ListedKeyKafkaSettings({ topic }: { topic?: string }) {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const canList = access.ready && access.can("keys:read");
  const keys = useQuery({ ...trpc.apiKeys.list.queryOptions(), enabled: canList });
  const choices = (keys.data?.apiKeys ?? [])
    .filter((key) => !key.revoked)
    .map((key) => ({ id: key.id, name: key.name ?? key.prefix ?? key.id }));
  return <KafkaClientSettings keys={choices} topic={topic} />;
}
