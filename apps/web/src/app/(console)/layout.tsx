import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleHeader } from "@/components/console/console-header";
import { Providers } from "@/components/console/providers";
import { apiServer } from "@/server/api-server";
import { currentTenant } from "@/server/current-tenant";

export const dynamic = "force-dynamic";

/** Every console page needs a session in a tenant; without one, sign in first. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const requestHeaders = await headers();
  const session = await apiServer().auth.api.getSession({ headers: requestHeaders });
  if (!session) redirect("/sign-in");
  const tenant = await currentTenant(requestHeaders);
  if (!tenant) redirect("/sign-in");
  return (
    <Providers>
      <ConsoleHeader organizationName={tenant.name} role={tenant.role} userEmail={session.user.email} />
      <main className="mx-auto max-w-5xl px-4 py-8">{children}</main>
    </Providers>
  );
}
