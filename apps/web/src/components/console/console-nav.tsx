"use client";

import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { Caret } from "../ui/caret";
import { FLOATING_PANEL, FLOATING_PLACEMENT } from "../ui/floating-panel";

const LINKS = [
  { href: "/overview", label: "Overview" },
  { href: "/topics", label: "Topics" },
  // The one long label, shortened on laptops (below 2xl) so ten sections, the organization and
  // the controls still fit one header row at 1280 px; its accessible name stays the full one.
  { href: "/consumer-groups", label: "Consumer groups", short: "Groups" },
  { href: "/transactions", label: "Transactions" },
  { href: "/schemas", label: "Schemas" },
  { href: "/api-keys", label: "API keys" },
  { href: "/compliance", label: "Compliance" },
  { href: "/members", label: "Members" },
  { href: "/settings", label: "Settings" },
  { href: "/api-reference", label: "API" },
] as const;

type ConsoleLink = (typeof LINKS)[number];

function RowLabel({ link }: { link: ConsoleLink }) {
  if (!("short" in link)) return link.label;
  return (
    <>
      <span className="2xl:hidden">{link.short}</span>
      <span className="hidden 2xl:inline">{link.label}</span>
    </>
  );
}

const isCurrent = (pathname: string, link: ConsoleLink) =>
  pathname === link.href || pathname.startsWith(`${link.href}/`);

/**
 * The console's sections: a row of links from `md` up; below it one "Menu" button opening the same
 * links in a Radix dropdown menu (keyboard, focus and dismissal handled there), so the header fits a phone.
 */
export function ConsoleNav() {
  const pathname = usePathname();
  const current = LINKS.find((link) => isCurrent(pathname, link));
  return (
    <nav aria-label="Console">
      <ul className="hidden flex-wrap gap-0.5 md:flex 2xl:gap-1">
        {LINKS.map((link) => (
          <li key={link.href}>
            <Link
              href={link.href}
              aria-current={current === link ? "page" : undefined}
              aria-label={"short" in link ? link.label : undefined}
              className={`rounded-md px-1.5 py-2 text-sm font-medium 2xl:px-3 ${current === link ? "bg-accent/10 text-accent" : "text-muted hover:text-ink"}`}
            >
              <RowLabel link={link} />
            </Link>
          </li>
        ))}
      </ul>
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger className="flex items-center gap-1 rounded-md border border-line px-3 py-1.5 text-sm font-medium md:hidden">
          Menu
          {current ? <span className="text-muted">· {current.label}</span> : null}
          <Caret />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content
            {...FLOATING_PLACEMENT}
            className={`${FLOATING_PANEL} flex min-w-56 flex-col p-1`}
          >
            {LINKS.map((link) => (
              <DropdownMenu.Item key={link.href} asChild>
                <Link
                  href={link.href}
                  aria-current={current === link ? "page" : undefined}
                  className={`rounded-md px-3 py-2 text-sm outline-none data-highlighted:bg-canvas ${current === link ? "font-medium text-accent" : "text-ink"}`}
                >
                  {link.label}
                </Link>
              </DropdownMenu.Item>
            ))}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </nav>
  );
}
