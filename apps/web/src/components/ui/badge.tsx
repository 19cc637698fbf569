import type { ReactNode } from "react";

type Tone = "neutral" | "accent" | "warning";

const tones: Record<Tone, string> = {
  neutral: "border-line text-muted",
  accent: "border-accent/40 bg-accent/10 text-accent",
  // amber-800 on the tinted background: amber-700 fell short of 4.5:1 contrast (axe-core).
  warning: "border-amber-500/40 bg-amber-500/10 text-amber-800 dark:text-amber-300",
};

export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium ${tones[tone]}`}
    >
      {children}
    </span>
  );
}
