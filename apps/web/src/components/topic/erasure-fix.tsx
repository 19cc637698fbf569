"use client";

import { useQuery } from "@tanstack/react-query";
import { configValueText } from "@/lib/config-units";
import { useConsoleAccess } from "@/lib/console-access";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { erasureCheckOf } from "@/lib/topic-config-form";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { ErrorNotice } from "../ui/notice";
import type { ConfigEntry } from "./config-entry";

/**
 * A compacted topic's configs against the organization's erasure deadline (the API's preflight),
 * and when they miss it, the config change that meets it, in whole units, applied with one button.
 */
export function ErasureFix({ topic, entries }: { topic: string; entries: readonly ConfigEntry[] }) {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const usage = useQuery(trpc.tenant.usage.queryOptions());
  const apply = useRefreshingMutation(trpc.topics.alterConfigs.mutationOptions(), {
    refresh: [trpc.topics.get.queryKey({ topic }), trpc.topics.configHistory.pathKey()],
  });
  const deadlineDays = usage.data?.quota.erasureDeadlineDays;
  if (deadlineDays === undefined) return null;
  const set = Object.fromEntries(
    entries.filter((entry) => entry.source === "set").map((entry) => [entry.name, entry.value]),
  );
  const check = erasureCheckOf(set, deadlineDays);
  if (check === null) return null;
  const current = (name: string) => entries.find((entry) => entry.name === name)?.value ?? "";
  return (
    <Card title="Erasure deadline">
      <div className="flex flex-col gap-3 text-sm">
        <p className={check.meetsDeadline ? "text-muted" : "text-amber-700 dark:text-amber-300"}>
          {check.meetsDeadline
            ? check.message
            : `An erased key's old values would outlive the organization's ${deadlineDays}-day erasure deadline on this topic.`}
        </p>
        {check.fix ? (
          <>
            <ul aria-label="Suggested config change" className="font-mono text-xs">
              {Object.entries(check.fix).map(([name, value]) => (
                <li key={name}>
                  {name}: {configValueText(name, current(name))} → {configValueText(name, value)}
                </li>
              ))}
            </ul>
            {apply.isError ? <ErrorNotice>{apply.error.message}</ErrorNotice> : null}
            {access.can("topics:write") ? (
              <div>
                <Button
                  disabled={apply.isPending}
                  onClick={() => apply.mutate({ topic, set: check.fix ?? {} })}
                >
                  {apply.isPending ? "Applying…" : "Apply suggested change"}
                </Button>
              </div>
            ) : (
              <p className="text-muted">Someone with topics:write can apply it.</p>
            )}
          </>
        ) : null}
        {!check.meetsDeadline && !check.fix ? (
          <p className="text-muted">
            The deadline is shorter than a cleaner tick and a pass: no config meets it.
          </p>
        ) : null}
      </div>
    </Card>
  );
}
