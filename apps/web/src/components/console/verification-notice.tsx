"use client";

import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { Button } from "../ui/button";

/** Where a verification link lands: the overview, flagged so it can say the address is now verified. */
export const VERIFIED_CALLBACK = "/overview?verified=1";

/**
 * Until the member's address is verified: where the link went (and, with no SMTP server
 * configured, that it is in the web server's log) with a Resend. Arriving from the link: that it
 * is verified. Signing in never needs it; accepting an invitation without its token does.
 */
export function VerificationNotice(props: { email: string; verified: boolean; mailLogged: boolean }) {
  const arrived = useSearchParams().get("verified") === "1";
  const [resend, setResend] = useState<"idle" | "sending" | "sent" | string>("idle");
  if (props.verified) {
    return arrived ? (
      <p role="status" className={BANNER}>
        Your email address {props.email} is verified.
      </p>
    ) : null;
  }
  const send = async () => {
    setResend("sending");
    const result = await authClient.sendVerificationEmail({
      email: props.email,
      callbackURL: VERIFIED_CALLBACK,
    });
    setResend(result.error ? (result.error.message ?? "We could not send it.") : "sent");
  };
  return (
    <section aria-label="Email verification" className={`${BANNER} flex flex-wrap items-center gap-3`}>
      <p>
        Verification link sent to <strong>{props.email}</strong>
        {props.mailLogged
          ? " (this server has no SMTP configured: the link is in the web server's log)"
          : null}
        . Open it to verify your address.
      </p>
      <Button variant="secondary" disabled={resend === "sending"} onClick={() => void send()}>
        {resend === "sending" ? "Sending…" : "Resend"}
      </Button>
      {resend === "sent" ? <span role="status">A new link is on its way.</span> : null}
      {resend !== "idle" && resend !== "sending" && resend !== "sent" ? (
        <span role="alert" className="text-danger">
          {resend}
        </span>
      ) : null}
    </section>
  );
}

const BANNER = "border-b border-line bg-accent/10 px-4 py-2 text-sm lg:px-8";
