"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  javaProperties,
  kafkajsConfig,
  latestViewKafkajs,
  latestViewKcat,
  librdkafkaProperties,
  type SaslMechanism,
  secretPlaceholder,
} from "@/lib/kafka-client-settings";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { CopyBlock } from "../ui/copy-block";
import { SelectField } from "../ui/field";
import { ErrorNotice, StatusNotice } from "../ui/notice";

/** A key the settings can be written for; the secret only when the key was just created. */
export interface KafkaKeyChoice {
  id: string;
  name: string;
  secret?: string;
}

/** A placeholder user when the viewer may not list keys (no keys:read): the form still teaches the shape. */
const NO_KEY: KafkaKeyChoice = { id: "<API key id>", name: "your key" };

/**
 * Settings a Kafka client can paste, for one of the tenant's keys: the brokers from
 * `kafka.connection` (live workers' advertised listeners), the chosen SASL mechanism, the key id
 * as username and its secret (or a placeholder naming the key) as password.
 */
export function KafkaClientSettings(props: {
  keys: readonly KafkaKeyChoice[];
  topic?: string;
  title?: string;
}) {
  const trpc = useTRPC();
  const connection = useQuery(
    trpc.kafka.connection.queryOptions(props.topic === undefined ? undefined : { topic: props.topic }),
  );
  const [keyId, setKeyId] = useState<string | null>(null);
  const [mechanism, setMechanism] = useState<SaslMechanism>("SCRAM-SHA-256");
  const key = props.keys.find((k) => k.id === keyId) ?? props.keys[0] ?? NO_KEY;
  return (
    <Card
      title={props.title ?? "Kafka client settings"}
      description="Every worker is a Kafka broker. Clients sign in with SASL: the API key's id is the username, its secret the password."
    >
      {connection.isPending ? <StatusNotice>Asking which brokers are up…</StatusNotice> : null}
      {connection.isError ? (
        <ErrorNotice>We could not load the brokers: {connection.error.message}</ErrorNotice>
      ) : null}
      {connection.data ? (
        <div className="flex min-w-0 flex-col gap-4">
          {connection.data.bootstrapServers.length === 0 ? (
            <p role="status" className="text-sm text-muted">
              No worker's Kafka listener is up right now; the settings below name no broker until one is.
            </p>
          ) : null}
          <div className="grid gap-4 sm:grid-cols-2">
            {props.keys.length > 0 ? (
              <SelectField
                label="API key"
                value={key.id}
                onChange={(event) => setKeyId(event.target.value)}
                options={props.keys.map((k) => ({ value: k.id, label: k.name }))}
              />
            ) : null}
            <SelectField
              label="SASL mechanism"
              value={mechanism}
              onChange={(event) => setMechanism(event.target.value as SaslMechanism)}
              options={connection.data.mechanisms}
            />
          </div>
          <SettingsBlocks
            settings={{
              bootstrapServers: connection.data.bootstrapServers,
              securityProtocol: connection.data.securityProtocol,
              mechanism,
              username: key.id,
              password: key.secret ?? secretPlaceholder(key.name),
              topic: props.topic,
            }}
            secretShown={key.secret !== undefined}
          />
          {connection.data.latestView ? <LatestView view={connection.data.latestView} /> : null}
        </div>
      ) : null}
    </Card>
  );
}

function SettingsBlocks({
  settings,
  secretShown,
}: {
  settings: Parameters<typeof kafkajsConfig>[0];
  secretShown: boolean;
}) {
  return (
    <>
      {secretShown ? (
        <p className="text-sm font-medium">These settings carry the secret: store them like it.</p>
      ) : (
        <p className="text-sm text-muted">
          The secret is shown only when a key is created; put it where the placeholder stands.
        </p>
      )}
      <CopyBlock label="kafkajs" value={kafkajsConfig(settings)} />
      <CopyBlock label="librdkafka and kcat properties" value={librdkafkaProperties(settings)} />
      <CopyBlock label="Java client properties" value={javaProperties(settings)} />
    </>
  );
}

/** Where a consumer that wants the topic's state, not its history, reads: the compacted view. */
function LatestView({ view }: { view: string }) {
  return (
    <section aria-label="Latest-value view" className="flex min-w-0 flex-col gap-2">
      <h3 className="text-sm font-medium">
        Latest-value view: <code className="font-mono">{view}</code>
      </h3>
      <p className="text-sm text-muted">
        A read-only Kafka topic for a cold start: from the beginning it serves each key&apos;s latest record
        (tombstones included), without the superseded ones, then the topic&apos;s new writes. Its offsets are
        the topic&apos;s.
      </p>
      <CopyBlock label="kcat: read the latest view" value={latestViewKcat(view)} />
      <CopyBlock label="kafkajs: read the latest view" value={latestViewKafkajs(view)} />
    </section>
  );
}
