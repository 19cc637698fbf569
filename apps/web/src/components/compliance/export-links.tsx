"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { ErrorNotice } from "../ui/notice";

type Format = "csv" | "json";

/** Saves an export the API returned as {filename, contentType, content} through a download link. */
function download(file: { filename: string; contentType: string; content: string }) {
  const url = URL.createObjectURL(new Blob([file.content], { type: file.contentType }));
  const link = document.createElement("a");
  link.href = url;
  link.download = file.filename;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

/**
 * Evidence of one request (or, without `requestId`, the tenant's whole audit trail) as CSV or
 * JSON files — the same documents `GET /api/v1/erasure-requests/{id}/evidence` and
 * `GET /api/v1/audit/export` serve.
 */
export function ExportLinks({ requestId }: { requestId?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<Format | null>(null);
  const [error, setError] = useState<string | null>(null);
  const what = requestId ? "evidence" : "audit trail";
  const save = async (format: Format) => {
    setBusy(format);
    setError(null);
    try {
      const file = requestId
        ? await queryClient.fetchQuery({
            ...trpc.erasure.evidence.queryOptions({ id: requestId, format }),
            staleTime: 0,
          })
        : await queryClient.fetchQuery({ ...trpc.audit.export.queryOptions({ format }), staleTime: 0 });
      download(file);
    } catch (caught) {
      setError(
        `We could not export the ${what}: ${caught instanceof Error ? caught.message : String(caught)}`,
      );
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap gap-2">
        {(["csv", "json"] as const).map((format) => (
          <Button key={format} variant="secondary" disabled={busy !== null} onClick={() => void save(format)}>
            {busy === format ? "Exporting…" : `Export ${what} (${format.toUpperCase()})`}
          </Button>
        ))}
      </div>
      {error ? <ErrorNotice>{error}</ErrorNotice> : null}
    </div>
  );
}
