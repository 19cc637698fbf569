"use client";

import { useId, useState } from "react";
import { parseTheme, THEMES, type Theme, themeAttribute, themeCookie } from "./theme";

const LABELS: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/** Light, dark or the system's choice; applied at once and remembered in a cookie. */
export function ThemeSelect({ initial }: { initial: Theme }) {
  const id = useId();
  const [theme, setTheme] = useState<Theme>(initial);
  const choose = (next: Theme) => {
    setTheme(next);
    // biome-ignore lint/suspicious/noDocumentCookie: one preference cookie; the Cookie Store API is not everywhere.
    document.cookie = themeCookie(next);
    const attribute = themeAttribute(next);
    if (attribute) document.documentElement.dataset.theme = attribute;
    else delete document.documentElement.dataset.theme;
  };
  return (
    <div className="flex items-center text-sm">
      <label htmlFor={id} className="sr-only">
        Theme
      </label>
      <select
        id={id}
        value={theme}
        onChange={(event) => choose(parseTheme(event.target.value))}
        className="rounded-md border border-line bg-surface px-2 py-1 text-sm text-ink"
      >
        {THEMES.map((entry) => (
          <option key={entry} value={entry}>
            {LABELS[entry]}
          </option>
        ))}
      </select>
    </div>
  );
}
