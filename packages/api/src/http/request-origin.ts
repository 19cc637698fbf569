/**
 * Whether a browser request was made by a page of the console itself. A session cookie goes with
 * every request to our host, whichever site's page sends it, so a cookie-authenticated state change
 * must show it comes from our own origin: `Origin` (every current browser sends it on POST, PUT,
 * PATCH and DELETE), else `Sec-Fetch-Site`, else `Referer`. A request with none of the three was
 * not sent by a browser page (curl, a server) and cannot ride a victim's cookie; it passes.
 */
export function isSameOriginRequest(headers: Headers, consoleUrl: string): boolean {
  const origin = headers.get("origin");
  if (origin !== null) return origin !== "null" && isConsoleOrigin(origin, headers, consoleUrl);
  const site = headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const referer = headers.get("referer");
  if (referer === null) return true;
  return URL.canParse(referer) && isConsoleOrigin(new URL(referer).origin, headers, consoleUrl);
}

/**
 * The console's public origin, or the host the request was sent to (a console reached by another
 * name than PUBLIC_URL, e.g. 127.0.0.1 for localhost). A page elsewhere cannot make a browser send
 * our Host with its own origin, so matching the request's own host admits no other site.
 */
function isConsoleOrigin(origin: string, headers: Headers, consoleUrl: string): boolean {
  if (!URL.canParse(origin)) return false;
  const { host } = new URL(origin);
  if (origin === new URL(consoleUrl).origin) return true;
  const requestHost = headers.get("x-forwarded-host") ?? headers.get("host");
  return requestHost !== null && host === requestHost.split(",")[0]!.trim();
}
