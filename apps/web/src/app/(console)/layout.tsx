import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { CONTENT_COLUMN, ConsoleHeader } from "@/components/console/console-header";
import { Providers } from "@/components/console/providers";
import { SkipLink } from "@/components/console/skip-link";
import { TenantGuard } from "@/components/console/tenant-guard";
import { parseTheme, THEME_COOKIE } from "@/components/console/theme";
import { VerificationNotice } from "@/components/console/verification-notice";
import { serverEnv } from "@/env";
import { apiServer } from "@/server/api-server";
import { currentTenant } from "@/server/current-tenant";

export const dynamic = "force-dynamic";

/** Every console page needs a session in a tenant; without one, sign in first. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const requestHeaders = await headers();
  const auth = apiServer().auth;
  const session = await auth.api.getSession({ headers: requestHeaders });
  if (!session) redirect("/sign-in");
  const [tenant, organizations] = await Promise.all([
    currentTenant(requestHeaders),
    auth.api.listOrganizations({ headers: requestHeaders }),
  ]);
  if (!tenant) redirect("/sign-in");
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  // Keyed by tenant: switching organizations starts a fresh query cache, so no page can show
  // the previous tenant's topics, keys or members while it refetches.
  return (
    <Providers key={tenant.tenantId} tenantId={tenant.tenantId}>
      <SkipLink target="content" />
      <TenantGuard tenantId={tenant.tenantId} />
      <ConsoleHeader
        organizations={organizations.map(({ id, name }) => ({ id, name }))}
        activeOrganizationId={tenant.tenantId}
        role={tenant.role}
        userEmail={session.user.email}
        theme={theme}
      />
      <VerificationNotice
        email={session.user.email}
        verified={session.user.emailVerified}
        mailLogged={serverEnv().SMTP_URL === undefined}
      />
      {/* Fluid up to 1920 px: tables with many columns (partitions, groups, cleaner runs) fit a
          laptop's width instead of a 1024 px column that clipped their last columns. */}
      <main id="content" tabIndex={-1} className={`${CONTENT_COLUMN} py-8 outline-none`}>
        {children}
      </main>
    </Providers>
  );
}
