"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/topics", label: "Topics" },
  { href: "/consumer-groups", label: "Consumer groups" },
  { href: "/api-keys", label: "API keys" },
  { href: "/compliance", label: "Compliance" },
  { href: "/members", label: "Members" },
  { href: "/api-reference", label: "API" },
] as const;

export function ConsoleNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Console">
      <ul className="flex flex-wrap gap-1">
        {LINKS.map((link) => {
          const current = pathname === link.href || pathname.startsWith(`${link.href}/`);
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                aria-current={current ? "page" : undefined}
                className={`rounded-md px-3 py-2 text-sm font-medium ${current ? "bg-accent/10 text-accent" : "text-muted hover:text-ink"}`}
              >
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
