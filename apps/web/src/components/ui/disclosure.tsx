import type { ReactNode } from "react";

/**
 * A short label (a badge) that opens to say more: a native <details>, so the explanation is
 * reachable by keyboard and touch as well as by pointer, where a `title` tooltip was hover-only.
 */
export function Disclosure({ summary, children }: { summary: ReactNode; children: ReactNode }) {
  return (
    <details className="group inline-block max-w-prose align-top">
      <summary className="inline-flex cursor-pointer list-none items-center gap-1 rounded-full [&::-webkit-details-marker]:hidden">
        {summary}
        <span aria-hidden="true" className="text-xs text-muted group-open:rotate-90">
          ›
        </span>
      </summary>
      <div className="mt-1 text-xs whitespace-normal text-muted">{children}</div>
    </details>
  );
}
