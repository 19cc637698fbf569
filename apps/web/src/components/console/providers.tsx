"use client";

import type { AppRouter } from "@lastword/api";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { type ReactNode, useState } from "react";
import { TRPCProvider } from "@/lib/trpc";

function makeQueryClient(): QueryClient {
  // A short stale time keeps lists fresh after another tab changes them without refetch storms.
  return new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1 } } });
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
