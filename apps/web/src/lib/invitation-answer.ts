"use client";

import type { AppRouter } from "@lastword/api";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AuthCallResult } from "./auth-action";

// The invitation page is outside the console (no tenant yet, no query cache): one plain client.
const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: "/api/trpc" })] });

/**
 * Accepts or declines through our procedures (which check the link's token or a verified address
 * and the grant rule), answering in better-auth's `{ error }` shape so the page's buttons share
 * useAuthAction with the other auth calls.
 */
export async function answerInvitation(
  answer: "accept" | "decline",
  input: { invitationId: string; token?: string | undefined },
): Promise<AuthCallResult> {
  try {
    await (answer === "accept" ? client.invitations.accept : client.invitations.decline).mutate(input);
    return { error: null };
  } catch (error) {
    return { error: { message: error instanceof Error ? error.message : undefined } };
  }
}
