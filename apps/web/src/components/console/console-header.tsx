import Link from "next/link";
import { Badge } from "../ui/badge";
import { ConsoleNav } from "./console-nav";
import { type OrganizationChoice, OrganizationSwitcher } from "./organization-switcher";
import { SignOutButton } from "./sign-out-button";
import type { Theme } from "./theme";
import { ThemeSelect } from "./theme-select";

/** The console's column, shared by the header and the page so their edges line up. */
export const CONTENT_COLUMN = "mx-auto w-full max-w-[120rem] px-4 lg:px-6";

export function ConsoleHeader(props: {
  organizations: OrganizationChoice[];
  activeOrganizationId: string;
  role: string | null;
  userEmail: string;
  theme: Theme;
}) {
  const { organizations, activeOrganizationId, role, userEmail, theme } = props;
  return (
    <header className="border-b border-line bg-surface">
      {/* Tight gaps below 2xl: at 1280 px the ten sections, the organization and the controls fit one row. */}
      <div className={`${CONTENT_COLUMN} flex flex-wrap items-center gap-x-2 gap-y-3 py-3 2xl:gap-x-4`}>
        <Link href="/overview" className="text-base font-semibold tracking-tight">
          Lastword
        </Link>
        <span aria-hidden="true" className="hidden text-line 2xl:inline">
          /
        </span>
        <OrganizationSwitcher
          organizations={organizations}
          activeId={activeOrganizationId}
          userEmail={userEmail}
        />
        {role ? <Badge>{role}</Badge> : null}
        <ConsoleNav />
        <div className="ml-auto flex items-center gap-3">
          <ThemeSelect initial={theme} />
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
