import { describe, expect, it } from "vitest";
import { saveScreenshotsAtWidths, useConsolePage, waitOrExplain } from "./console-session";

// Issue 27: the tenant's capacity limits are quotas a tenant can see, by the names its errors use.
describe("tenant settings", () => {
  const ui = useConsolePage({ account: "Tenant Settings" });

  it("lists every limit the tenant is held to, with its value, under the name errors and metrics use", async () => {
    await ui.page.goto("/settings");
    const table = ui.page.getByRole("table", { name: "Tenant limits" });
    await waitOrExplain(ui.page, table, "tenant-settings");
    const row = (name: string) => table.getByRole("row").filter({ hasText: name });
    await expect.poll(() => row("maxConnectionsPerWorker").textContent()).toContain("1,000");
    expect(await row("connectionsPerSecond").textContent()).toContain("100");
    expect(await row("maxBatchInflatedBytes").textContent()).toContain("16");
    expect(await row("maxRequestInflatedBytes").textContent()).toContain("64");
    expect(await row("maxBatchRecords").textContent()).toContain("100,000");
    expect(await row("requestTimeMsPerSecond").textContent()).toContain("250 ms/s");
    expect(await row("fetchBytesPerSecond").textContent()).toContain("64");
    expect(await row("produceBytesPerSecond").textContent()).toContain("64");
    const overflow = await saveScreenshotsAtWidths(ui.page, "tenant-settings");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
  });
});
