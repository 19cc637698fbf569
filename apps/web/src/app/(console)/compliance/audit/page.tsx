import Link from "next/link";
import { AuditViewer } from "@/components/compliance/audit-viewer";
import { consoleRoute } from "../../console-route";

const route = consoleRoute(
  "Audit trail",
  <>
    Every change in this organization, who made it and when, in one hash chain.{" "}
    <Link href="/compliance" className="text-accent hover:underline">
      ← Compliance
    </Link>
  </>,
  <AuditViewer />,
);

export const metadata = route.metadata;

export default function AuditPage() {
  return route.page;
}
