"use client";

import { KafkaClientSettings } from "../kafka/kafka-client-settings";
import { Button } from "../ui/button";
import { CopyField } from "../ui/copy-field";

/** The only time a key's secret is visible: it is not stored in a readable form. */
export function NewKeySecret({
  id,
  name,
  secret,
  onDone,
}: {
  id: string;
  name: string;
  secret: string;
  onDone: () => void;
}) {
  return (
    <div className="flex flex-col gap-3 rounded-md border border-accent/40 bg-accent/5 p-4">
      <p className="text-sm font-medium">Copy the key “{name}” now. You will not be able to see it again.</p>
      <CopyField label="New API key secret" value={secret} />
      <KafkaClientSettings keys={[{ id, name, secret }]} title="Kafka client settings for this key" />
      <div>
        <Button variant="secondary" onClick={onDone}>
          I have stored it
        </Button>
      </div>
    </div>
  );
}
