import type { Locator, Page } from "playwright-core";
import { waitOrExplain } from "./console-session";
import { showTab } from "./topic-actions";

/** The message browser's result table. */
export function messagesTable(page: Page): Locator {
  return page.getByRole("table", { name: "Messages", exact: true });
}

/** One record's row, found by its partition and offset (the offset is the row header). */
export function messageRow(page: Page, offset: number, partition = 0): Locator {
  return messagesTable(page)
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: new RegExp(`^${offset}(\\s*Offsets? |$)`) }) })
    .filter({ has: page.getByRole("cell", { name: String(partition), exact: true }) });
}

/** A row's cells after the offset: partition, timestamp, key, value, headers. */
export async function messageCells(page: Page, offset: number, partition = 0): Promise<string[]> {
  return messageRow(page, offset, partition).getByRole("cell").allTextContents();
}

/** The offsets shown, in the table's order (without the gap sentences under them). */
export async function shownOffsets(page: Page): Promise<number[]> {
  const heads = await messagesTable(page).getByRole("rowheader").allTextContents();
  return heads.map((text) => Number.parseInt(text, 10));
}

/** Sets the browser form's fields (labels as shown), searches, and waits for the scan's summary. */
export async function searchMessages(
  page: Page,
  fields: { select?: Record<string, string>; fill?: Record<string, string> } = {},
): Promise<string> {
  await showTab(page, "Messages");
  const form = page.getByRole("form", { name: "Browse messages" });
  for (const [label, value] of Object.entries(fields.select ?? {})) {
    await form.getByLabel(label, { exact: true }).selectOption(value);
  }
  for (const [label, value] of Object.entries(fields.fill ?? {})) {
    await form.getByLabel(label, { exact: true }).fill(value);
  }
  // A search clears the summary before it asks (React commits a click's updates at once), so the
  // summary waited for below is this search's.
  await form.getByRole("button", { name: "Search messages" }).click();
  const done = page.getByRole("status", { name: "Scan progress" }).filter({ hasText: /^Scanned/ });
  await waitOrExplain(page, done, "message-search");
  return (await done.textContent()) ?? "";
}
