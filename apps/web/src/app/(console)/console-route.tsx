import type { Metadata } from "next";
import type { ReactNode } from "react";
import { ConsolePage } from "@/components/ui/console-page";

/**
 * A console route's metadata and page from its title (the browser tab's and the heading's, written
 * once), the paragraph saying what the page is for, and its sections.
 */
export function consoleRoute(title: string, intro: ReactNode, sections: ReactNode) {
  const metadata: Metadata = { title };
  const page = (
    <ConsolePage title={title} intro={intro}>
      {sections}
    </ConsolePage>
  );
  return { metadata, page };
}
