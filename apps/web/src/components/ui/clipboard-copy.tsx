"use client";

import { useState } from "react";

type CopyState = "idle" | "copied" | "failed";

/** Copies `value` on demand and remembers whether the clipboard took it (browsers can refuse). */
export function useClipboardCopy(value: string): { state: CopyState; copy: () => Promise<void> } {
  const [state, setState] = useState<CopyState>("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      setState("failed");
    }
  };
  return { state, copy };
}

/** The polite line under a Copy button saying how the copy went. */
export function CopyOutcome({ state }: { state: CopyState }) {
  return (
    <p role="status" className="min-h-4 text-xs text-muted">
      {state === "copied" ? "Copied to the clipboard." : null}
      {state === "failed" ? "The browser did not allow copying; select the text and copy it by hand." : null}
    </p>
  );
}
