import { AppError, type AppErrorCode } from "./app-error";

/**
 * The 503 a request gets when a store it needs (Postgres, Redis) cannot be reached: `store` names
 * it for the caller, and `retryAfterSeconds` is how long that store's outages are waited out.
 */
export function storeUnavailable(
  code: Extract<AppErrorCode, `${string}_UNAVAILABLE`>,
  store: string,
  retryAfterSeconds: number,
  cause: unknown,
): AppError {
  return new AppError(code, `${store} cannot be reached right now; this request needs it. Retry shortly.`, {
    cause,
    retryAfterSeconds,
  });
}
