"use client";

import { useId } from "react";
import { Button } from "./button";
import { useClipboardCopy } from "./clipboard-copy";

/** A multi-line snippet under its heading with a Copy button (CopyField is the one-line kind). */
export function CopyBlock({ label, value }: { label: string; value: string }) {
  const id = useId();
  const { copy } = useClipboardCopy(value);
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
    </figure>
  );
}
