"use client";

import type { AppRouter } from "@lastword/api";
import { EXPECTED_TENANT_HEADER } from "@lastword/api/tenant-slug";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { useRouter } from "next/navigation";
import { type ReactNode, useState } from "react";
import { TRPCProvider } from "@/lib/trpc";
import { Toaster } from "../ui/toaster";

/** The API refused a request because the session's organization is no longer the page's. */
function isTenantChanged(error: unknown): boolean {
  const data = (error as { data?: { code?: unknown } } | null)?.data;
  return data?.code === "TENANT_CHANGED";
}

function makeQueryClient(onTenantChanged: () => void): QueryClient {
  const onError = (error: unknown) => {
    if (isTenantChanged(error)) onTenantChanged();
  };
  // A short stale time keeps lists fresh after another tab changes them without refetch storms.
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 5_000, retry: (failures, error) => !isTenantChanged(error) && failures < 1 },
    },
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
  });
}

/**
 * Every request names the tenant this page was rendered for, so a click in a tab whose session was
 * switched to another organization elsewhere is refused by the API instead of acting on the other
 * tenant; the refusal renders the layout again under the session's organization.
 */
export function Providers({ tenantId, children }: { tenantId: string; children: ReactNode }) {
  const router = useRouter();
  const [queryClient] = useState(() => makeQueryClient(() => router.refresh()));
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: "/api/trpc", headers: () => ({ [EXPECTED_TENANT_HEADER]: tenantId }) })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <Toaster>{children}</Toaster>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
