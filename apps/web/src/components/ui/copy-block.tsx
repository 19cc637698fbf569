"use client";

import { useId, useState } from "react";
import { Button } from "./button";

/** A multi-line snippet under its heading with a Copy button (CopyField is the one-line kind). */
export function CopyBlock({ label, value }: { label: string; value: string }) {
  const id = useId();
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
  };
  return (
    <figure aria-labelledby={`${id}-label`} className="flex min-w-0 flex-col gap-1">
      <div className="flex items-center justify-between gap-2">
        <figcaption id={`${id}-label`} className="text-sm font-medium">
          {label}
        </figcaption>
        <Button variant="secondary" onClick={copy} aria-label={`Copy ${label}`}>
          Copy
        </Button>
      </div>
      {/* Long lines wrap anywhere (the copied text keeps them whole): a JAAS line never widens a phone's page. */}
      <pre className="whitespace-pre-wrap break-all rounded-md border border-line bg-canvas p-3 font-mono text-xs">
        <code>{value}</code>
      </pre>
      <p role="status" className="min-h-4 text-xs text-muted">
        {copied === "copied" ? "Copied to the clipboard." : null}
        {copied === "failed"
          ? "The browser did not allow copying; select the text and copy it by hand."
          : null}
      </p>
    </figure>
  );
}
