import { appRouter, openApiDocument } from "@lastword/api";
import type { Metadata } from "next";
import { ApiReferenceViewer } from "@/components/api-reference/api-reference-viewer";
import { ConsolePage } from "@/components/ui/console-page";
import { serverEnv } from "@/env";

export const metadata: Metadata = { title: "API reference" };

/** The REST API as programs see it: built from the same document served at /api/v1/openapi.json. */
export default function ApiReferencePage() {
  const document = openApiDocument(appRouter, serverEnv().PUBLIC_URL);
  return (
    <ConsolePage
      title="API reference"
      intro={
        <>
          Send <code className="font-mono">Authorization: Bearer &lt;api key&gt;</code> with every request;
          create keys on the API keys page and paste one into an operation's “Test Request” panel to call the
          API from here. Keys and values are typed envelopes{" "}
          <code className="font-mono">{'{"type":"string"|"json"|"base64","data":…}'}</code>, a null value is a
          tombstone, and errors are RFC 9457 problem documents with a stable{" "}
          <code className="font-mono">code</code>. The machine-readable document is{" "}
          <a className="text-accent underline" href="/api/v1/openapi.json">
            /api/v1/openapi.json
          </a>
          .
        </>
      }
    >
      <ApiReferenceViewer document={document} />
    </ConsolePage>
  );
}
