"use client";

import type { KeyRule } from "@lastword/api/access-rules";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useConsoleAccess } from "@/lib/console-access";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { SelectField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { MutationFooter } from "../ui/form-footer";
import { KeyRulesEditor } from "./key-rules-editor";

/**
 * Changes an existing key's topic and group rules (the API's PUT /api-keys/{id}/rules, the same
 * rules Kafka's ACL APIs read and write). Shown to those who may change keys.
 */
export function EditKeyRulesForm() {
  const access = useConsoleAccess();
  return access.ready && access.can("keys:write") ? <EditForm /> : null;
}

function EditForm() {
  const trpc = useTRPC();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const live = (keys.data?.apiKeys ?? []).filter((key) => !key.revoked);
  const [keyId, setKeyId] = useState("");
  const [rules, setRules] = useState<KeyRule[]>([]);
  const [saved, setSaved] = useState(false);
  const save = useRefreshingMutation(trpc.apiKeys.setRules.mutationOptions(), {
    refresh: [trpc.apiKeys.list.queryKey()],
    reset: () => setSaved(true),
  });
  const choose = (id: string) => {
    setKeyId(id);
    setSaved(false);
    setRules(live.find((key) => key.id === id)?.rules ?? []);
  };
  if (live.length === 0) return null;
  return (
    <FormCard
      title="Limit a key to topics and groups"
      description="Pick a key, then name the topics and groups it may act on. Saving replaces its rules."
      onSubmit={() => keyId && save.mutate({ id: keyId, rules })}
      className="flex flex-col gap-4"
    >
      <SelectField
        label="Key"
        value={keyId}
        required
        onChange={(event) => choose(event.target.value)}
        options={live.map((key) => ({
          value: key.id,
          label: `${key.name ?? "Unnamed key"} (${key.prefix ?? key.id}…)`,
        }))}
      >
        <option value="" disabled>
          Choose a key
        </option>
      </SelectField>
      {keyId ? <KeyRulesEditor rules={rules} onChange={setRules} idPrefix="edit-key" /> : null}
      {saved ? (
        <p role="status" className="text-sm text-muted">
          Rules saved. Open Kafka connections of the key follow within two seconds.
        </p>
      ) : null}
      <MutationFooter mutation={save} label="Save rules" pendingLabel="Saving rules…" />
    </FormCard>
  );
}
