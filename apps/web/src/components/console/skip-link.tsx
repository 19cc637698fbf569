/**
 * The first focusable element of every console page: hidden until focused, it moves focus past
 * the header and navigation to the page's own content (WCAG 2.4.1, bypass blocks).
 */
export function SkipLink({ target }: { target: string }) {
  return (
    <a
      href={`#${target}`}
      className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-surface focus:px-4 focus:py-2 focus:text-sm focus:font-medium focus:text-accent focus:shadow"
    >
      Skip to content
    </a>
  );
}
