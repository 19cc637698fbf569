"use client";

import { usePathname, useRouter } from "next/navigation";
import { type KeyboardEvent, useRef } from "react";
import { useAuthAction } from "@/lib/auth-action";
import { authClient } from "@/lib/auth-client";
import { ErrorNotice } from "../ui/notice";
import { CreateOrganizationForm } from "./create-organization-form";

export interface OrganizationChoice {
  id: string;
  name: string;
}

/**
 * A page under a section (/topics/orders) names a resource of the old tenant; after a switch the
 * section's list (/topics) is the page that still means something.
 */
function sectionRoot(pathname: string): string {
  const first = pathname.split("/").filter(Boolean)[0];
  return first ? `/${first}` : "/topics";
}

/**
 * The header's organization menu: the active organization, the others to switch to (better-auth's
 * `organization/set-active`, which the API's tenant resolution reads), and a form for a new one.
 * The console layout keys its query cache by tenant, so nothing of the old tenant stays on screen.
 */
export function OrganizationSwitcher(props: {
  organizations: OrganizationChoice[];
  activeId: string;
  userEmail: string;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const menu = useRef<HTMLDetailsElement>(null);
  // Keyed by the organization being switched to, whose entry says so while it runs.
  const switching = useAuthAction<string>();
  const active = props.organizations.find((entry) => entry.id === props.activeId);
  const others = props.organizations.filter((entry) => entry.id !== props.activeId);

  const arrive = () => {
    if (menu.current) menu.current.open = false;
    router.push(sectionRoot(pathname));
    router.refresh();
  };
  const switchTo = (organization: OrganizationChoice) =>
    void switching.run(
      organization.id,
      () => authClient.organization.setActive({ organizationId: organization.id }),
      { fallback: `We could not switch to ${organization.name}.`, onSuccess: arrive },
    );
  const closeOnEscape = (event: KeyboardEvent<HTMLDetailsElement>) => {
    if (event.key !== "Escape" || !menu.current?.open) return;
    menu.current.open = false;
    menu.current.querySelector("summary")?.focus();
  };

  return (
    <details ref={menu} className="relative" onKeyDown={closeOnEscape}>
      <summary className="flex cursor-pointer list-none items-center gap-1 rounded-md px-2 py-1 text-sm font-medium hover:bg-canvas">
        <span className="sr-only">Organization: </span>
        <span data-testid="organization-name">{active?.name ?? "Organization"}</span>
        <span aria-hidden="true" className="text-muted">
          ▾
        </span>
      </summary>
      <div className="absolute left-0 z-20 mt-2 flex w-72 flex-col gap-4 rounded-lg border border-line bg-surface p-4 shadow-lg">
        <p className="text-xs text-muted">Signed in as {props.userEmail}</p>
        <section aria-labelledby="switch-organization-title" className="flex flex-col gap-2">
          <h2
            id="switch-organization-title"
            className="text-xs font-medium uppercase tracking-wide text-muted"
          >
            Your organizations
          </h2>
          <ul className="flex flex-col gap-1">
            <li
              className="rounded-md bg-accent/10 px-2 py-1 text-sm font-medium text-accent"
              aria-current="true"
            >
              {active?.name} <span className="sr-only">(current)</span>
            </li>
            {others.map((organization) => (
              <li key={organization.id}>
                <button
                  type="button"
                  onClick={() => switchTo(organization)}
                  disabled={switching.busy}
                  aria-label={`Switch to ${organization.name}`}
                  className="w-full rounded-md px-2 py-1 text-left text-sm hover:bg-canvas disabled:opacity-60"
                >
                  {switching.pending === organization.id
                    ? `Switching to ${organization.name}…`
                    : organization.name}
                </button>
              </li>
            ))}
          </ul>
          {others.length === 0 ? (
            <p className="text-xs text-muted">You belong to this organization only.</p>
          ) : null}
          {switching.error ? <ErrorNotice>{switching.error}</ErrorNotice> : null}
        </section>
        <CreateOrganizationForm onCreated={arrive} />
      </div>
    </details>
  );
}
