import type { ReactNode } from "react";

/** Errors interrupt (role=alert); progress and empty states are polite (role=status). */
export function ErrorNotice({ children }: { children: ReactNode }) {
  return (
    <p role="alert" className="rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger">
      {children}
    </p>
  );
}

export function StatusNotice({ children }: { children: ReactNode }) {
  return (
    <p
      role="status"
      className="rounded-md border border-dashed border-line px-3 py-6 text-center text-sm text-muted"
    >
      {children}
    </p>
  );
}

/**
 * A background refresh failed while the page still shows what it loaded before: say so beside
 * the data instead of replacing it (the next refresh retries on its own).
 */
export function RefreshFailedNotice({ error }: { error: { message: string } }) {
  return (
    <ErrorNotice>
      We could not refresh this page: {error.message}. It shows what it loaded before and keeps trying.
    </ErrorNotice>
  );
}
