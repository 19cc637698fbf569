import { builtApiServer } from "./api-server";

/** How long a stop waits for Postgres to take the held usage counts. */
const USAGE_FLUSH_TIMEOUT_MS = 5_000;

const EXIT_CODES = { SIGTERM: 143, SIGINT: 130 } as const;

export function stopOnSignals(): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      const server = builtApiServer();
      const flushed = server ? server.close(USAGE_FLUSH_TIMEOUT_MS) : Promise.resolve(true);
      void flushed
        .then((complete) => {
          if (!complete)
            console.error("lastword web: stopped with usage counts not yet written (Postgres unreachable)");
        })
        .finally(() => process.exit(EXIT_CODES[signal]));
    });
  }
}
