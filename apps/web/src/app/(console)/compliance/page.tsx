import Link from "next/link";
import { ComplianceDashboard } from "@/components/compliance/compliance-dashboard";
import { ExportLinks } from "@/components/compliance/export-links";
import { FileRequestForm } from "@/components/compliance/file-request-form";
import { TopicReadiness } from "@/components/compliance/topic-readiness";
import { Card } from "@/components/ui/card";
import { consoleRoute } from "../console-route";

const route = consoleRoute(
  "Compliance",
  <>
    Erasure requests (GDPR Art. 17): each deadline, what is at risk, and the proof that old values are
    physically gone. Keys and metadata only — record values are never shown here.
  </>,
  <>
    <ComplianceDashboard />
    <TopicReadiness />
    <FileRequestForm />
    <Card title="Audit trail" description="Every event of this organization, hash-chained, as CSV or JSON.">
      <p className="mb-3 text-sm">
        <Link href="/compliance/audit" className="text-accent underline underline-offset-2">
          Open the audit trail
        </Link>{" "}
        to filter events, see who made each, and verify the chain.
      </p>
      <ExportLinks />
    </Card>
  </>,
);

export const metadata = route.metadata;

export default function CompliancePage() {
  return route.page;
}
