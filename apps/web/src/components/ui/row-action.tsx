"use client";

import type { QueryKey, UseMutationOptions } from "@tanstack/react-query";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { ConfirmButton } from "./confirm-button";

/**
 * A table row's destructive action (revoke a key, remove a member): two steps (ConfirmButton),
 * then the mutation, after which the list it changed reloads before the buttons settle.
 */
export function RowAction<TData, TError extends { message: string }, TVariables, TContext>(props: {
  verb: string;
  gerund: string;
  target: string;
  mutation: UseMutationOptions<TData, TError, TVariables, TContext>;
  variables: TVariables;
  refresh: readonly QueryKey[];
}) {
  const action = useRefreshingMutation(props.mutation, { refresh: props.refresh });
  return (
    <ConfirmButton
      verb={props.verb}
      gerund={props.gerund}
      target={props.target}
      action={action}
      onConfirm={() => action.mutate(props.variables)}
    />
  );
}
