import Link from "next/link";
import { AuditViewer } from "@/components/compliance/audit-viewer";
import { consoleRoute } from "../../console-route";

const route = consoleRoute(
  "Audit trail",
  <>
    {/* Underlined: inside a sentence, colour alone would not mark it as a link (WCAG 1.4.1). */}
    Every change in this organization, who made it and when, in one hash chain.{" "}
    <Link href="/compliance" className="text-accent underline underline-offset-2">
      ← Compliance
    </Link>
  </>,
  [AuditViewer],
);

export const metadata = route.metadata;

export default function AuditPage() {
  return route.page;
}
