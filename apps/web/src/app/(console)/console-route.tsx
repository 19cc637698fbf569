import type { Metadata } from "next";
import type { ReactNode } from "react";
import { ConsolePage } from "@/components/ui/console-page";

/**
 * What a console route's page.tsx exports, from its title (the browser tab's and the heading's,
 * written once), the paragraph saying what the page is for, and its sections.
 */
export function consoleRoute(title: string, intro: ReactNode, sections: ReactNode) {
  const metadata: Metadata = { title };
  function Page() {
    return (
      <ConsolePage title={title} intro={intro}>
        {sections}
      </ConsolePage>
    );
  }
  Page.displayName = `${title} page`;
  return { metadata, Page };
}
