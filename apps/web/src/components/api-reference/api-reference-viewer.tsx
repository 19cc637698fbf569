"use client";

import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";
import "./api-reference-theme.css";
import { useEffect, useState } from "react";

type Scheme = "light" | "dark";

/** The scheme the console shows now: the theme select's choice on <html>, else the system's. */
function consoleScheme(): Scheme {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === "light" || chosen === "dark") return chosen;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/**
 * The REST API's OpenAPI document in Scalar's viewer: operations with their schemas, examples,
 * request snippets (curl first) and a try-it client that sends to our own `/api/v1` with the API key
 * typed into its Bearer field. Everything it needs is bundled: no fonts, proxy or telemetry from
 * elsewhere (the CSP would refuse them anyway), and its colours are the console's.
 */
export function ApiReferenceViewer({ document }: { document: object }) {
  // Scalar picks its code-highlighting palette from this; the page colours follow the console's
  // variables either way (api-reference-theme.css).
  const [scheme, setScheme] = useState<Scheme | null>(null);
  useEffect(() => {
    setScheme(consoleScheme());
    const observer = new MutationObserver(() => setScheme(consoleScheme()));
    observer.observe(window.document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => observer.disconnect();
  }, []);
  if (scheme === null) return null;
  return (
    <div className="lastword-api-reference overflow-hidden rounded-md border border-line">
      <ApiReferenceReact
        configuration={{
          content: document as Record<string, unknown>,
          theme: "none",
          withDefaultFonts: false,
          telemetry: false,
          showDeveloperTools: "never",
          hideDarkModeToggle: true,
          forceDarkModeState: scheme,
          documentDownloadType: "json",
          persistAuth: false,
          agent: { disabled: true },
          defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
          authentication: { preferredSecurityScheme: "bearerAuth" },
        }}
      />
    </div>
  );
}
