/** The console's colour scheme: follow the system, or a person's explicit choice kept in a cookie. */
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

/** Read on the server by the root layout, so the first paint already has the chosen scheme. */
export const THEME_COOKIE = "lw-theme";

const ONE_YEAR_S = 365 * 86_400;

export function parseTheme(value: string | undefined): Theme {
  return (THEMES as readonly string[]).includes(value ?? "") ? (value as Theme) : "system";
}

/** `data-theme` on <html>: absent for "system", so prefers-color-scheme decides. */
export function themeAttribute(theme: Theme): "light" | "dark" | undefined {
  return theme === "system" ? undefined : theme;
}

export function themeCookie(theme: Theme): string {
  return `${THEME_COOKIE}=${theme}; path=/; max-age=${ONE_YEAR_S}; samesite=lax`;
}
