import type { Metadata } from "next";
import { Suspense } from "react";
import { SchemasPage } from "@/components/schemas/schemas-page";

export const metadata: Metadata = { title: "Schemas" };

export default function SchemasRoute() {
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Schemas</h1>
        <p className="mt-1 text-sm text-muted">
          This organization&apos;s schema registry: subjects and their versions (Avro, Protobuf, JSON Schema),
          each subject&apos;s compatibility level, and new versions checked before they are saved. Programs
          use it through Confluent&apos;s API at <code className="font-mono">/schema-registry</code> with an
          API key.
        </p>
      </div>
      {/* The page reads ?subject= (useSearchParams), so it renders on the client. */}
      <Suspense>
        <SchemasPage />
      </Suspense>
    </div>
  );
}
