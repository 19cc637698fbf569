import Link from "next/link";
import { Badge } from "../ui/badge";
import { ConsoleNav } from "./console-nav";
import { SignOutButton } from "./sign-out-button";

export function ConsoleHeader(props: { organizationName: string; role: string | null; userEmail: string }) {
  const { organizationName, role, userEmail } = props;
  return (
    <header className="border-b border-line bg-surface">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-4 px-4 py-3">
        <Link href="/topics" className="text-base font-semibold tracking-tight">
          Lastword
        </Link>
        <span aria-hidden="true" className="text-line">
          /
        </span>
        <p className="text-sm font-medium" data-testid="organization-name">
          <span className="sr-only">Organization: </span>
          {organizationName}
        </p>
        {role ? <Badge>{role}</Badge> : null}
        <ConsoleNav />
        <div className="ml-auto flex items-center gap-3">
          <p className="hidden text-sm text-muted sm:block">{userEmail}</p>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
