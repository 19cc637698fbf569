"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { useAuthAction } from "@/lib/auth-action";
import { authClient } from "@/lib/auth-client";
import { answerInvitation } from "@/lib/invitation-answer";
import { Button } from "../ui/button";
import { ErrorNotice } from "../ui/notice";

type Action = "accept" | "decline" | "open";

// The API answers in English already; these cover a missing message only.
const FALLBACK: Record<Action, string> = {
  accept: "We could not accept the invitation. It may have expired or been withdrawn; reload to see.",
  decline: "We could not decline the invitation. Please try again.",
  open: "We could not open the organization. Please try again.",
};

/**
 * Accept (our procedure adds the membership with the invited role and makes that organization the
 * active one) or decline, with the link's token when the visitor came by the link;
 * `alreadyMember` offers to open the organization instead.
 */
export function AcceptInvitation(props: {
  invitationId: string;
  token: string | undefined;
  organizationId: string;
  organizationName: string;
  alreadyMember: boolean;
}) {
  const router = useRouter();
  const action = useAuthAction<Action>();
  const [declined, setDeclined] = useState(false);
  // Server-rendered buttons do nothing until hydration; disabled until then, a click is never lost.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  const blocked = !ready || action.busy;

  const run = (key: Action) => {
    const answer = { invitationId: props.invitationId, token: props.token };
    void action.run(
      key,
      () =>
        key === "open"
          ? authClient.organization.setActive({ organizationId: props.organizationId })
          : answerInvitation(key, answer),
      {
        fallback: FALLBACK[key],
        onSuccess: () => {
          if (key === "decline") {
            setDeclined(true);
            return;
          }
          router.push("/topics");
          router.refresh();
        },
      },
    );
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
      {action.error ? <ErrorNotice>{action.error}</ErrorNotice> : null}
      {props.alreadyMember ? (
        <Button onClick={() => run("open")} disabled={blocked}>
          {action.pending === "open" ? "Opening…" : `Open ${props.organizationName}`}
        </Button>
      ) : (
        <div className="flex gap-2">
          <Button onClick={() => run("accept")} disabled={blocked}>
            {action.pending === "accept" ? "Joining…" : `Accept and join ${props.organizationName}`}
          </Button>
          <Button variant="secondary" onClick={() => run("decline")} disabled={blocked}>
            {action.pending === "decline" ? "Declining…" : "Decline"}
          </Button>
        </div>
      )}
    </div>
  );
}
