import type { Metadata } from "next";
import { ApiKeyList } from "@/components/api-keys/api-key-list";
import { CreateApiKeyForm } from "@/components/api-keys/create-api-key-form";
import { ListedKeyKafkaSettings } from "@/components/kafka/listed-key-kafka-settings";

export const metadata: Metadata = { title: "API keys" };

export default function ApiKeysPage() {
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
        <p className="mt-1 text-sm text-muted">
          Programs use a key as <code className="font-mono">Authorization: Bearer &lt;key&gt;</code> on the
          REST API under <code className="font-mono">/api/v1</code>, and as SASL credentials with Kafka
          clients.
        </p>
      </div>
      <CreateApiKeyForm />
      <ApiKeyList />
      <ListedKeyKafkaSettings />
    </div>
  );
}
