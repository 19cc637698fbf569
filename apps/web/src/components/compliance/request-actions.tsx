"use client";

import { useConsoleAccess } from "@/lib/console-access";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import type { ErasureDetail } from "./erasure-stages";

/**
 * The ways out of "at risk" and "failed": apply the config change the preflight offers (one click
 * per topic, audited as a config change), and for a failed request, look at it again (purged if
 * every partition has been proven since, otherwise passes are requested). More time is the
 * deadline form beside it.
 */
export function RequestActions({ request }: { request: ErasureDetail }) {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const refresh = [trpc.erasure.get.queryKey({ id: request.id })];
  const reverify = useRefreshingMutation(trpc.erasure.reverify.mutationOptions(), { refresh });
  const fix = useRefreshingMutation(trpc.topics.alterConfigs.mutationOptions(), { refresh });
  const fixes = Object.entries(request.preflight).flatMap(([topic, preflight]) =>
    preflight.fix ? [{ topic, set: preflight.fix }] : [],
  );
  const canFix = access.can("topics:write") && (request.status === "at-risk" || request.status === "failed");
  const canReverify =
    access.can("erasure:write") && request.status === "failed" && request.tombstones.length > 0;
  if (!(canFix && fixes.length > 0) && !canReverify) return null;
  return (
    <div className="flex flex-col gap-2">
      {canFix
        ? fixes.map(({ topic, set }) => (
            <Button
              key={topic}
              variant="secondary"
              disabled={fix.isPending}
              onClick={() =>
                fix.mutate({ topic, set, reset: [], validateOnly: false, overrideErasureDeadlines: false })
              }
            >
              Apply the fix to {topic}:{" "}
              {Object.entries(set)
                .map(([name, value]) => `${name}=${value}`)
                .join(", ")}
            </Button>
          ))
        : null}
      {fix.isSuccess ? (
        <StatusNotice>The fix is applied: {fix.data.topic.name}'s configs changed.</StatusNotice>
      ) : null}
      {fix.isError ? <ErrorNotice>We could not apply the fix: {fix.error.message}</ErrorNotice> : null}
      {canReverify ? (
        <Button
          variant="secondary"
          disabled={reverify.isPending}
          onClick={() => reverify.mutate({ id: request.id })}
        >
          Re-verify
        </Button>
      ) : null}
      {reverify.isSuccess && !reverify.data.verified ? (
        <StatusNotice>
          {reverify.data.unpurgedPartitions} partition(s) are not proven purged yet: a cleaner pass was
          requested on each. Re-verify again once it ran.
        </StatusNotice>
      ) : null}
      {reverify.isError ? <ErrorNotice>We could not re-verify: {reverify.error.message}</ErrorNotice> : null}
    </div>
  );
}
