"use client";

import { useId, useState } from "react";
import { Button } from "../ui/button";

/** The only time a key's secret is visible: it is not stored in a readable form. */
export function NewKeySecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
  };
  return (
    <div className="flex flex-col gap-3 rounded-md border border-accent/40 bg-accent/5 p-4">
      <p className="text-sm font-medium">Copy the key “{name}” now. You will not be able to see it again.</p>
      <label htmlFor={id} className="sr-only">
        New API key secret
      </label>
      <div className="flex gap-2">
        <input
          id={id}
          readOnly
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
          className="w-full rounded-md border border-line bg-surface px-3 py-2 font-mono text-sm"
        />
        <Button variant="secondary" onClick={copy}>
          Copy
        </Button>
      </div>
      <p role="status" className="text-xs text-muted">
        {copied === "copied" ? "Copied to the clipboard." : null}
        {copied === "failed"
          ? "The browser did not allow copying; select the key and copy it by hand."
          : null}
      </p>
      <div>
        <Button variant="secondary" onClick={onDone}>
          I have stored it
        </Button>
      </div>
    </div>
  );
}
