"use client";

import { useState } from "react";
import { Button } from "./button";
import { ErrorNotice } from "./notice";

interface ConfirmButtonProps {
  /** The verb on the first button ("Revoke"); the second reads "<verb> now". */
  verb: string;
  /** While the action runs ("Revoking…"). */
  pendingLabel: string;
  /** What the action touches, for the buttons' accessible names ("Revoke ci-key"). */
  target: string;
  /** The accessible name of the confirming button ("Confirm revoking ci-key"). */
  confirmLabel: string;
  pending: boolean;
  error: string | null;
  onConfirm: () => void;
}

/** A destructive action in two steps, so one stray click cannot do it. */
export function ConfirmButton(props: ConfirmButtonProps) {
  const [confirming, setConfirming] = useState(false);
  if (props.error !== null) return <ErrorNotice>{props.error}</ErrorNotice>;
  if (!confirming) {
    return (
      <Button
        variant="secondary"
        onClick={() => setConfirming(true)}
        aria-label={`${props.verb} ${props.target}`}
      >
        {props.verb}
      </Button>
    );
  }
  return (
    <div className="flex justify-end gap-2">
      <Button variant="secondary" onClick={() => setConfirming(false)}>
        Keep
      </Button>
      <Button
        variant="danger"
        disabled={props.pending}
        onClick={props.onConfirm}
        aria-label={props.confirmLabel}
      >
        {props.pending ? props.pendingLabel : `${props.verb} now`}
      </Button>
    </div>
  );
}
