import { ROLES } from "@lastword/api";
import { z } from "zod";
import { serverEnv } from "../env";
import { apiServer } from "./api-server";

const currentTenantSchema = z.object({
  tenantId: z.string(),
  name: z.string(),
  slug: z.string(),
  role: z.enum(ROLES).nullable(),
});

export type CurrentTenant = z.infer<typeof currentTenantSchema>;

const responseSchema = z.object({ result: z.object({ data: currentTenantSchema }) });

/**
 * The caller's tenant as the API resolves it (the active organization, else the first membership),
 * asked in-process through the same tRPC handler the browser uses, so server-rendered pages and
 * client queries never disagree about which tenant is current. Null when signed out.
 */
export async function currentTenant(requestHeaders: Headers): Promise<CurrentTenant | null> {
  const url = new URL("/api/trpc/tenant.current", serverEnv().PUBLIC_URL);
  const request = new Request(url, { headers: { cookie: requestHeaders.get("cookie") ?? "" } });
  const response = await apiServer().handleTrpc(request);
  if (!response.ok) return null;
  const parsed = responseSchema.safeParse(await response.json());
  return parsed.success ? parsed.data.result.data : null;
}
