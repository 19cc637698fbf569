import { apiKeyClient } from "@better-auth/api-key/client";
import { organizationClient } from "better-auth/client/plugins";
import { createAuthClient } from "better-auth/react";

/** Same-origin: the console and /api/auth are served by the same Next app. */
export const authClient = createAuthClient({
  plugins: [organizationClient(), apiKeyClient()],
});
