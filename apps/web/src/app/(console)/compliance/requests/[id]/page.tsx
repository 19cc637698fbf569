import type { Metadata } from "next";
import { RequestDetail } from "@/components/compliance/request-detail";

export const metadata: Metadata = { title: "Erasure request" };

export default async function ErasureRequestPage({ params }: { params: Promise<{ id: string }> }) {
  return <RequestDetail id={decodeURIComponent((await params).id)} />;
}
