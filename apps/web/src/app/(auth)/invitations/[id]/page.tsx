import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { AcceptInvitation } from "@/components/auth/accept-invitation";
import { afterAuthPath, authEntryQuery } from "@/components/auth/after-auth";
import { type InvitationState, invitationState } from "@/components/auth/invitation-state";
import { SignOutButton } from "@/components/console/sign-out-button";
import { apiServer } from "@/server/api-server";
import { database } from "@/server/database";

export const metadata: Metadata = { title: "Invitation" };
export const dynamic = "force-dynamic";

const dateFormat = new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" });
const linkClass = "font-medium text-accent underline-offset-2 hover:underline";

function Frame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section
      aria-labelledby="invitation-title"
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-6 shadow-sm"
    >
      <h1 id="invitation-title" className="text-xl font-semibold">
        {title}
      </h1>
      {children}
    </section>
  );
}

type ClosedState = Exclude<InvitationState, { kind: "pending" }>;

function explain(state: ClosedState): { title: string; body: string } {
  switch (state.kind) {
    case "unknown":
      return {
        title: "Invitation not found",
        body: "This link does not match any invitation. Check that you copied all of it, or ask the person who invited you for a new one.",
      };
    case "accepted":
      return {
        title: "Invitation already accepted",
        body: `This invitation to ${state.organizationName} has already been accepted; its organization is in your organization menu.`,
      };
    case "withdrawn":
      return {
        title: "Invitation withdrawn",
        body: `This invitation to ${state.organizationName} was declined or withdrawn. Ask an owner or admin for a new one.`,
      };
    case "expired":
      return {
        title: "Invitation expired",
        body: `This invitation to ${state.organizationName} expired on ${dateFormat.format(state.expiresAt)}. Ask an owner or admin of ${state.organizationName} to invite you again.`,
      };
  }
}

/** Every state but "pending" ends here with a sentence: an old or mistyped link must not crash. */
function Closed({ state }: { state: ClosedState }) {
  const { title, body } = explain(state);
  return (
    <Frame title={title}>
      <p role="status" className="text-sm text-muted">
        {body}
      </p>
      <p className="text-sm">
        <Link className={linkClass} href="/topics">
          Go to the console
        </Link>
      </p>
    </Frame>
  );
}

/**
 * An invitation link (shown once to the inviter; `?token=` is its secret). Read straight from the
 * database so a signed-out visitor learns who invited which email; accepting goes through our
 * procedure, which checks the email, the token or a verified address, status and expiry again.
 */
export default async function InvitationPage(props: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { id } = await props.params;
  const { token: tokenParam } = await props.searchParams;
  const token = typeof tokenParam === "string" && tokenParam !== "" ? tokenParam : undefined;
  const row = await database().invitation.findUnique({
    where: { id },
    include: { organization: { select: { name: true } } },
  });
  const state = invitationState(row, new Date());
  if (state.kind !== "pending") return <Closed state={state} />;

  const here = afterAuthPath({ invitationId: id, token });
  const invited = (
    <p className="text-sm">
      <strong>{state.organizationName}</strong> invited <strong>{state.email}</strong> to join as{" "}
      <strong>{state.role}</strong>. The invitation is valid until {dateFormat.format(state.expiresAt)}.
    </p>
  );
  const session = await apiServer().auth.api.getSession({ headers: await headers() });
  if (!session) {
    const query = authEntryQuery({ invitationId: id, token, email: state.email });
    return (
      <Frame title={`Join ${state.organizationName}`}>
        {invited}
        <p className="text-sm text-muted">Sign in, or create an account, with that email to accept.</p>
        <div className="flex gap-3 text-sm">
          <Link className={linkClass} href={`/sign-up${query}`}>
            Create an account
          </Link>
          <Link className={linkClass} href={`/sign-in${query}`}>
            Sign in
          </Link>
        </div>
      </Frame>
    );
  }
  if (session.user.email.toLowerCase() !== state.email.toLowerCase()) {
    return (
      <Frame title={`Join ${state.organizationName}`}>
        {invited}
        <p role="status" className="text-sm text-muted">
          You are signed in as {session.user.email}, so you cannot accept it. Sign out, then sign in or create
          an account as {state.email}.
        </p>
        <div>
          <SignOutButton then={here} />
        </div>
      </Frame>
    );
  }
  const membership = await database().member.findFirst({
    where: { organizationId: state.organizationId, userId: session.user.id },
    select: { id: true },
  });
  return (
    <Frame title={`Join ${state.organizationName}`}>
      {invited}
      {membership ? (
        <p role="status" className="text-sm text-muted">
          You are already a member of {state.organizationName}.
        </p>
      ) : null}
      {!membership && !token && !session.user.emailVerified ? (
        <p role="status" className="text-sm text-muted">
          To accept, open the invitation link you were sent (it carries a secret token), or first verify{" "}
          {state.email} with the link we emailed when you signed up.
        </p>
      ) : null}
      <AcceptInvitation
        invitationId={id}
        token={token}
        organizationId={state.organizationId}
        organizationName={state.organizationName}
        alreadyMember={membership !== null}
      />
    </Frame>
  );
}
