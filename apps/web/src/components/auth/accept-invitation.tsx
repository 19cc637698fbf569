"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { Button } from "../ui/button";
import { ErrorNotice } from "../ui/notice";

type Pending = "accept" | "decline" | "open" | null;

// better-auth answers in English already; these cover a missing message only.
const FALLBACK: Record<Exclude<Pending, null>, string> = {
  accept: "We could not accept the invitation. It may have expired or been withdrawn; reload to see.",
  decline: "We could not decline the invitation. Please try again.",
  open: "We could not open the organization. Please try again.",
};

/**
 * Accept (better-auth adds the membership with the invited role and makes that organization the
 * active one) or decline; `alreadyMember` offers to open the organization instead.
 */
export function AcceptInvitation(props: {
  invitationId: string;
  organizationId: string;
  organizationName: string;
  alreadyMember: boolean;
}) {
  const router = useRouter();
  const [pending, setPending] = useState<Pending>(null);
  const [error, setError] = useState<string | null>(null);
  const [declined, setDeclined] = useState(false);
  // Server-rendered buttons do nothing until hydration; disabled until then, a click is never lost.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  const blocked = !ready || pending !== null;

  const run = async (action: Exclude<Pending, null>) => {
    setPending(action);
    setError(null);
    const { organization } = authClient;
    const result =
      action === "accept"
        ? await organization.acceptInvitation({ invitationId: props.invitationId })
        : action === "decline"
          ? await organization.rejectInvitation({ invitationId: props.invitationId })
          : await organization.setActive({ organizationId: props.organizationId });
    setPending(null);
    if (result.error) {
      setError(result.error.message ?? FALLBACK[action]);
      return;
    }
    if (action === "decline") {
      setDeclined(true);
      return;
    }
    router.push("/topics");
    router.refresh();
  };

  if (declined) {
    return (
      <p role="status" className="text-sm text-muted">
        You declined the invitation to {props.organizationName}.
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      {error ? <ErrorNotice>{error}</ErrorNotice> : null}
      {props.alreadyMember ? (
        <Button onClick={() => run("open")} disabled={blocked}>
          {pending === "open" ? "Opening…" : `Open ${props.organizationName}`}
        </Button>
      ) : (
        <div className="flex gap-2">
          <Button onClick={() => run("accept")} disabled={blocked}>
            {pending === "accept" ? "Joining…" : `Accept and join ${props.organizationName}`}
          </Button>
          <Button variant="secondary" onClick={() => run("decline")} disabled={blocked}>
            {pending === "decline" ? "Declining…" : "Decline"}
          </Button>
        </div>
      )}
    </div>
  );
}
