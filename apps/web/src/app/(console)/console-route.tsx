import type { Metadata } from "next";
import type { ComponentType, ReactElement, ReactNode } from "react";
import { ConsolePage } from "@/components/ui/console-page";

/**
 * A console route's metadata and page from its title (the browser tab's and the heading's, written
 * once), the paragraph saying what the page is for, and its sections: the components it stacks, in
 * order, or the one element of a page that lays its sections out itself.
 */
export function consoleRoute(
  title: string,
  intro: ReactNode,
  sections: readonly ComponentType[] | ReactElement,
) {
  const metadata: Metadata = { title };
  const page = (
    <ConsolePage title={title} intro={intro}>
      {isSectionList(sections)
        ? // biome-ignore lint/suspicious/noArrayIndexKey: a page's sections never reorder; each one's place is its identity.
          sections.map((Section, place) => <Section key={place} />)
        : sections}
    </ConsolePage>
  );
  return { metadata, page };
}

// Array.isArray narrows to a mutable any[], which a readonly list is not.
function isSectionList(
  sections: readonly ComponentType[] | ReactElement,
): sections is readonly ComponentType[] {
  return Array.isArray(sections);
}
