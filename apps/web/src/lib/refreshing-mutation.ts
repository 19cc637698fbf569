"use client";

import { type QueryKey, type UseMutationOptions, useMutation, useQueryClient } from "@tanstack/react-query";

interface AfterSuccess<TData> {
  /** The queries that show what the mutation changed. */
  refresh: readonly QueryKey[];
  /** Clears the inputs that produced the change (a form's fields), before the refresh. */
  reset?: (data: TData) => void;
}

/**
 * A console mutation that, once it succeeds, resets its inputs and reloads the queries it changed.
 * It stays pending until they have reloaded, so its button does not come back before the page
 * shows the change.
 */
export function useRefreshingMutation<TData, TError, TVariables, TContext>(
  options: UseMutationOptions<TData, TError, TVariables, TContext>,
  after: AfterSuccess<TData>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    onSuccess: async (data, ...rest) => {
      // What the options brought (tRPC's success hook) still runs first.
      await options.onSuccess?.(data, ...rest);
      after.reset?.(data);
      await Promise.all(after.refresh.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
  });
}
