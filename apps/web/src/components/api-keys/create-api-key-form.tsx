"use client";

import type { KeyRule } from "@lastword/api/access-rules";
import { useState } from "react";
import { API_KEY_SCOPES, type ApiKeyScope, defaultScopesFor, grantableBy } from "@/lib/api-key-scopes";
import { type ConsoleAccess, useConsoleAccess } from "@/lib/console-access";
import { filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { TextField } from "../ui/field";
import { Form } from "../ui/form";
import { MutationFooter } from "../ui/form-footer";
import { KeyRulesEditor } from "./key-rules-editor";
import { NewKeySecret } from "./new-key-secret";

export function CreateApiKeyForm() {
  const access = useConsoleAccess();
  return access.ready && access.can("keys:write") ? <CreateForm access={access} /> : null;
}

/** `access` is the creator's: what the scopes offered start from and stop at. */
function CreateForm({ access }: { access: ConsoleAccess }) {
  const trpc = useTRPC();
  const name = useInput("");
  const [scopes, setScopes] = useState<ApiKeyScope[]>(() => defaultScopesFor(access.role, access.scopes));
  const [rules, setRules] = useState<KeyRule[]>([]);
  const checks = useFieldChecks({
    name: [name.value, [filled("Name the key, for example after the program that uses it.")]],
    scopes: [scopes.join(","), [filled("Tick at least one scope: a key without scopes can do nothing.")]],
  });
  const [revealed, setRevealed] = useState<{ id: string; name: string; secret: string } | null>(null);
  const create = useRefreshingMutation(trpc.apiKeys.create.mutationOptions(), {
    refresh: [trpc.apiKeys.list.queryKey()],
    reset: (created) => {
      setRevealed({ id: created.id, name: created.name, secret: created.key });
      name.set("");
      setRules([]);
      checks.reset();
    },
  });

  const toggle = (scope: ApiKeyScope, on: boolean) =>
    setScopes((current) => (on ? [...current, scope] : current.filter((entry) => entry !== scope)));
  const submit = checks.guard(() => create.mutate({ name: name.value, scopes, rules }));

  return (
    <Card
      title="Create an API key"
      description="Give each program its own key, with only the scopes it needs."
    >
      <div className="flex flex-col gap-4">
        {revealed ? <NewKeySecret {...revealed} onDone={() => setRevealed(null)} /> : null}
        <Form aria-label="Create an API key" onSubmit={submit} className="flex flex-col gap-4">
          <TextField
            label="Key name"
            maxLength={64}
            {...checks.field("name", name)}
            hint="Say where it is used, for example “billing-service production”."
          />
          <fieldset
            className="flex flex-col gap-2"
            aria-describedby={checks.errors.scopes ? "key-scopes-hint key-scopes-error" : "key-scopes-hint"}
          >
            <legend className="mb-1 text-sm font-medium">Scopes</legend>
            <p id="key-scopes-hint" className="text-xs text-muted">
              A new key reads only; tick each write it needs. Scopes above your role (
              {access.role ?? "unknown"}) cannot be granted.
            </p>
            {checks.errors.scopes ? (
              <p id="key-scopes-error" className="text-xs text-danger">
                {checks.errors.scopes}
              </p>
            ) : null}
            <div className="grid gap-2 sm:grid-cols-2">
              {API_KEY_SCOPES.map((entry) => {
                const grantable = grantableBy(access.role, access.scopes, entry.scope);
                return (
                  <label
                    key={entry.scope}
                    className={`flex items-center gap-2 text-sm ${grantable ? "" : "text-muted"}`}
                  >
                    <input
                      type="checkbox"
                      checked={scopes.includes(entry.scope)}
                      disabled={!grantable}
                      onChange={(event) => toggle(entry.scope, event.target.checked)}
                      className="size-4 accent-accent"
                    />
                    <span>
                      {entry.label} <code className="font-mono text-xs text-muted">{entry.scope}</code>
                      {grantable ? null : <span className="sr-only"> (above your role)</span>}
                    </span>
                  </label>
                );
              })}
            </div>
          </fieldset>
          <KeyRulesEditor rules={rules} onChange={setRules} idPrefix="new-key" />
          <MutationFooter mutation={create} label="Create key" pendingLabel="Creating key…" />
        </Form>
      </div>
    </Card>
  );
}
