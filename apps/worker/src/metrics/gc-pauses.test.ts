import { Registry } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { exportGcPauses } from "./gc-pauses";

describe("exportGcPauses", () => {
  it("counts the event-loop thread's collections by kind, with the time they held it", async () => {
    const registry = new Registry();
    exportGcPauses(registry);
    const minor = async () => {
      const metrics = await registry.getMetricsAsJSON();
      const of = (name: string) =>
        metrics.find((m) => m.name === name)?.values.find((v) => v.labels.kind === "minor")?.value ?? 0;
      return { count: of("lastword_gc_total"), seconds: of("lastword_gc_seconds_total") };
    };
    expect((await minor()).count).toBe(0);
    // Short-lived garbage until the young generation has been collected at least once.
    let keep = 0;
    await vi.waitFor(
      async () => {
        for (let i = 0; i < 200_000; i++) keep += [i, { i }].length;
        expect((await minor()).count).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(keep).toBeGreaterThan(0);
    expect((await minor()).seconds).toBeGreaterThan(0);
  });
});
