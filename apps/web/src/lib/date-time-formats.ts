/**
 * The console's date-and-time formats, built once and shared: every table and chart that shows
 * a time in one of these styles reads alike, and no module builds its own copy.
 */

/** Compact, for table cells and chart labels: "12/7/26, 6:03:39 PM". */
export const shortDateTime = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "medium" });

/** Spelled out, where there is room: "Dec 7, 2026, 6:03:39 PM". */
export const mediumDateTime = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium" });
