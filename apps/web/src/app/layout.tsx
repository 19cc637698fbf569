import type { Metadata } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { parseTheme, THEME_COOKIE, themeAttribute } from "@/components/console/theme";
import { ZodJitless } from "@/components/zod-jitless";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Lastword", template: "%s · Lastword" },
  description: "Managed compacted topics: the latest value of every key, kept forever.",
};

// The theme cookie is read here, so a chosen scheme is in the first paint (no flash of the other one).
export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={themeAttribute(theme)}>
      <body className="min-h-screen font-sans antialiased">
        <ZodJitless />
        {children}
      </body>
    </html>
  );
}
