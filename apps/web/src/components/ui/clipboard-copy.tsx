"use client";

import { useToast } from "./toaster";

/** Copies `value` on demand and says in a toast whether the clipboard took it (browsers can refuse). */
export function useClipboardCopy(value: string): { copy: () => Promise<void> } {
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      toast("Copied to the clipboard.");
    } catch {
      toast("The browser did not allow copying; select the text and copy it by hand.", "error");
    }
  };
  return { copy };
}
