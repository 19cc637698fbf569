"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "./trpc";

export interface ConsoleAccess {
  ready: boolean;
  role: string | null;
  scopes: readonly string[];
  can: (scope: string) => boolean;
}

/**
 * What the signed-in member may do, from tenant.current's scopes (the API enforces the same
 * scopes; this only decides which controls to offer). `admin` stands for every scope, as in the API.
 * Until the scopes load, nothing privileged is offered.
 */
export function useConsoleAccess(): ConsoleAccess {
  const trpc = useTRPC();
  const tenant = useQuery({ ...trpc.tenant.current.queryOptions(), staleTime: 60_000 });
  const scopes: readonly string[] = tenant.data?.scopes ?? [];
  return {
    ready: tenant.isSuccess,
    role: tenant.data?.role ?? null,
    scopes,
    can: (scope) => scopes.includes("admin") || scopes.includes(scope),
  };
}
