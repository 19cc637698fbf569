import type { Locator, Page } from "playwright-core";

/**
 * Waits for one of the console's notices in `scope` saying `text`: role=status for news (a saved
 * change, an empty result), role=alert for a refusal in the API's words.
 */
export async function waitForNotice(
  scope: Page | Locator,
  role: "status" | "alert",
  text: string,
): Promise<void> {
  await scope.getByRole(role).filter({ hasText: text }).waitFor();
}
