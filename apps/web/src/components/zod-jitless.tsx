"use client";

import { z } from "zod";

// The console's CSP has no 'unsafe-eval' (next.config.ts), so zod's compiled parsers cannot run in
// the browser, and its probe for them (`Function("")` in a try) is reported as a violation. Its
// interpreted parsers give the same answers; set before any form validates.
z.config({ jitless: true });

/** Rendered once in the root layout so the setting above is in every page's client bundle. */
export function ZodJitless(): null {
  return null;
}
