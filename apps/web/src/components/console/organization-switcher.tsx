"use client";

import * as Popover from "@radix-ui/react-popover";
import { usePathname, useRouter } from "next/navigation";
import { useState } from "react";
import { useAuthAction } from "@/lib/auth-action";
import { authClient } from "@/lib/auth-client";
import { Caret } from "../ui/caret";
import { FLOATING_PANEL, FLOATING_PLACEMENT } from "../ui/floating-panel";
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
 * A Radix popover (it holds a form, so not a menu): focus moves in and back, Escape and outside
 * clicks close it.
 */
export function OrganizationSwitcher(props: {
  organizations: OrganizationChoice[];
  activeId: string;
  userEmail: string;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  // Keyed by the organization being switched to, whose entry says so while it runs.
  const switching = useAuthAction<string>();
  const active = props.organizations.find((entry) => entry.id === props.activeId);
  const others = props.organizations.filter((entry) => entry.id !== props.activeId);

  const arrive = () => {
    setOpen(false);
    router.push(sectionRoot(pathname));
    router.refresh();
  };
  const switchTo = (organization: OrganizationChoice) =>
    void switching.run(
      organization.id,
      () => authClient.organization.setActive({ organizationId: organization.id }),
      { fallback: `We could not switch to ${organization.name}.`, onSuccess: arrive },
    );

  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <Popover.Trigger className="flex min-w-0 cursor-pointer items-center gap-1 rounded-md px-2 py-1 text-sm font-medium hover:bg-canvas">
        <span className="sr-only">Organization: </span>
        <span data-testid="organization-name" className="truncate">
          {active?.name ?? "Organization"}
        </span>
        <Caret />
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          {...FLOATING_PLACEMENT}
          aria-label="Organizations"
          className={`${FLOATING_PANEL} flex w-72 max-w-[calc(100vw-1rem)] flex-col gap-4 p-4`}
        >
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
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
