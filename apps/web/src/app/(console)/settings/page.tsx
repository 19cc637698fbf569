import { RenameOrganizationForm } from "@/components/tenant/rename-organization-form";
import { TenantQuotas } from "@/components/tenant/tenant-quotas";
import { consoleRoute } from "../console-route";

const route = consoleRoute(
  "Tenant settings",
  <>
    The organization's name, and the limits this tenant is held to. Over one, the service answers with an
    error that names the limit (Kafka clients see its error code and message; REST a problem response), counts
    it in its metrics, and other tenants notice nothing. To change a limit, ask the operator.
  </>,
  [RenameOrganizationForm, TenantQuotas],
);

export const metadata = route.metadata;

export default function TenantSettingsPage() {
  return route.page;
}
