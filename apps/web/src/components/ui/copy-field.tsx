"use client";

import { useId } from "react";
import { Button } from "./button";
import { useClipboardCopy } from "./clipboard-copy";

/** A read-only value with a Copy button; a toast says whether the copy worked (clipboards can refuse). */
export function CopyField({ label, value, mono = true }: { label: string; value: string; mono?: boolean }) {
  const id = useId();
  const { copy } = useClipboardCopy(value);
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} id={`${id}-label`} className="sr-only">
        {label}
      </label>
      <div className="flex gap-2">
        <input
          id={id}
          readOnly
          value={value}
          onFocus={(event) => event.currentTarget.select()}
          className={`w-full rounded-md border border-line bg-surface px-3 py-2 text-sm ${mono ? "font-mono" : ""}`}
        />
        {/* Named "Copy", described by the field's label, so a label lookup finds the field alone. */}
        <Button variant="secondary" onClick={copy} aria-describedby={`${id}-label`}>
          Copy
        </Button>
      </div>
    </div>
  );
}
