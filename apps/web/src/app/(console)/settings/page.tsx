import type { Metadata } from "next";
import { RenameOrganizationForm } from "@/components/tenant/rename-organization-form";
import { TenantQuotas } from "@/components/tenant/tenant-quotas";
import { ConsolePage } from "@/components/ui/console-page";

export const metadata: Metadata = { title: "Tenant settings" };

export default function TenantSettingsPage() {
  return (
    <ConsolePage
      title="Tenant settings"
      intro={
        <>
          The organization's name, and the limits this tenant is held to. Over one, the service answers with
          an error that names the limit (Kafka clients see its error code and message; REST a problem
          response), counts it in its metrics, and other tenants notice nothing. To change a limit, ask the
          operator.
        </>
      }
    >
      <RenameOrganizationForm />
      <TenantQuotas />
    </ConsolePage>
  );
}
