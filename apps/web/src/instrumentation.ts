/**
 * Runs once when the Next.js server starts. `npm run start` sets NEXT_MANUAL_SIG_HANDLE, so Next
 * leaves SIGTERM/SIGINT to us: the API server first writes the usage counts it still holds (the
 * write-behind window, or what it kept while Postgres was unreachable), then the process exits.
 */
export async function register(): Promise<void> {
  // biome-ignore lint/style/noProcessEnv: Next inlines NEXT_RUNTIME per runtime at build time, which keeps the node-only shutdown code out of the edge bundle; it must stay a literal process.env read, and NEXT_MANUAL_SIG_HANDLE is Next's own switch read beside it.
  if (process.env.NEXT_RUNTIME !== "nodejs" || !process.env.NEXT_MANUAL_SIG_HANDLE) return;
  const { stopOnSignals } = await import("./server/shutdown");
  stopOnSignals();
}
