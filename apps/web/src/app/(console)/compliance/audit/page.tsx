import type { Metadata } from "next";
import Link from "next/link";
import { AuditViewer } from "@/components/compliance/audit-viewer";
import { ConsolePage } from "@/components/ui/console-page";

export const metadata: Metadata = { title: "Audit trail" };

export default function AuditPage() {
  return (
    <ConsolePage
      title="Audit trail"
      intro={
        <>
          {/* Underlined: inside a sentence, colour alone would not mark it as a link (WCAG 1.4.1). */}
          Every change in this organization, who made it and when, in one hash chain.{" "}
          <Link href="/compliance" className="text-accent underline underline-offset-2">
            ← Compliance
          </Link>
        </>
      }
    >
      <AuditViewer />
    </ConsolePage>
  );
}
