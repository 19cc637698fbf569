"use client";

import { useState } from "react";

/** What better-auth's client calls resolve to: they report a failure in `error` instead of throwing. */
export interface AuthCallResult {
  error: { message?: string | undefined } | null;
}

interface AuthOutcome {
  /** The error line when better-auth sends no message of its own. */
  fallback: string;
  onSuccess: () => void;
  /** A form that navigates away on success stays pending, so its button cannot be pressed again meanwhile. */
  staysPending?: boolean;
}

/**
 * One better-auth call at a time, behind a form or a row of buttons: which one is pending (`key`:
 * the button or entry that started it), and the error line, which a new call clears.
 */
export function useAuthAction<Key = true>() {
  const [pending, setPending] = useState<Key | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (key: Key, call: () => Promise<AuthCallResult>, outcome: AuthOutcome) => {
    setPending(key);
    setError(null);
    const result = await call();
    if (result.error) {
      setPending(null);
      setError(result.error.message ?? outcome.fallback);
      return;
    }
    if (!outcome.staysPending) setPending(null);
    outcome.onSuccess();
  };
  return { pending, busy: pending !== null, error, run };
}
