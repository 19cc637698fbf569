"use client";

import { useState } from "react";
import { Button } from "./button";
import { ErrorNotice } from "./notice";

interface ConfirmButtonProps {
  /** The verb on the first button ("Revoke"); the second reads "<verb> now". */
  verb: string;
  /**
   * Its -ing form ("Revoking"): the label while the action runs ("Revoking…") and, with the target,
   * the confirming button's accessible name ("Confirm revoking ci-key").
   */
  gerund: string;
  /** What the action touches, for the buttons' accessible names ("Revoke ci-key"). */
  target: string;
  /** The mutation behind the buttons: pending, or failed (its message then stands in their place). */
  action: { isPending: boolean; error: { message: string } | null };
  onConfirm: () => void;
}

/** A destructive action in two steps, so one stray click cannot do it. */
export function ConfirmButton(props: ConfirmButtonProps) {
  const [confirming, setConfirming] = useState(false);
  if (props.action.error !== null) return <ErrorNotice>{props.action.error.message}</ErrorNotice>;
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
        disabled={props.action.isPending}
        onClick={props.onConfirm}
        aria-label={`Confirm ${props.gerund.toLowerCase()} ${props.target}`}
      >
        {props.action.isPending ? `${props.gerund}…` : `${props.verb} now`}
      </Button>
    </div>
  );
}
