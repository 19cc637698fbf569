import { ApiKeyList } from "@/components/api-keys/api-key-list";
import { CreateApiKeyForm } from "@/components/api-keys/create-api-key-form";
import { EditKeyRulesForm } from "@/components/api-keys/edit-key-rules-form";
import { ListedKeyKafkaSettings } from "@/components/kafka/listed-key-kafka-settings";
import { consoleRoute } from "../console-route";

const route = consoleRoute(
  "API keys",
  <>
    Programs use a key as <code className="font-mono">Authorization: Bearer &lt;key&gt;</code> on the REST API
    under <code className="font-mono">/api/v1</code>, and as SASL credentials with Kafka clients.
  </>,
  [CreateApiKeyForm, ApiKeyList, EditKeyRulesForm, ListedKeyKafkaSettings],
);

export const metadata = route.metadata;

export default function ApiKeysPage() {
  return route.page;
}
