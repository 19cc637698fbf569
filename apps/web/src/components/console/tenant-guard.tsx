"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useTRPC } from "@/lib/trpc";

/**
 * The active organization belongs to the session, not the tab: a switch in another tab changes
 * what this tab's queries return. tenant.current is re-asked whenever the tab regains focus; when
 * it names another tenant than the page was rendered for, the layout is rendered again, which
 * starts a fresh query cache under the right header.
 */
export function TenantGuard({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const current = useQuery({ ...trpc.tenant.current.queryOptions(), refetchOnWindowFocus: "always" });
  const resolved = current.data?.tenantId;
  useEffect(() => {
    if (resolved !== undefined && resolved !== tenantId) router.refresh();
  }, [resolved, tenantId, router]);
  return null;
}
