import { describe, expect, it } from "vitest";
import { eventually } from "./test-topics";
import { useTieringCrash } from "./tiering-crash-steps";

// Worker processes SIGKILLed at each step of moving a partition into objects of its own (a
// segment upload, a consolidation, a cleaner pass's upload; the deletion of what they replaced is
// tiering-crash-delete's). After each crash the manifest must be the old set or the new one, never
// a mix, and a worker with an empty disk must serve every acknowledged record, then finish the step.
const { machines, harness, crashAt, rows, expectWholeManifest, takeOver, storeKeys } =
  useTieringCrash("tiering-crash");

describe("crashes while a partition moves into objects of its own", () => {
  it("after a segment object's upload, before its rows swap: the commit rows stay, the object is an orphan", async () => {
    const crash = await crashAt("seg-die", "before-segment-swap", { count: 40, keys: 40 });
    expect((await rows(crash.partitionId)).every((row) => row.kind === "commit")).toBe(true);
    await expectWholeManifest(crash.partitionId);
    const orphans = await storeKeys(`segments/${crash.partitionId}/`);
    expect(orphans.length).toBeGreaterThan(0);
    const { worker, served } = await takeOver("seg-after", crash);
    for (const [offset, text] of crash.acked) expect(served.get(offset)).toBe(text);
    await eventually("the new owner uploads the segments", 15_000, async () =>
      (await rows(crash.partitionId)).some((row) => row.kind === "segment") ? true : undefined,
    );
    await expectWholeManifest(crash.partitionId);
    await machines.stop(worker);
    expect(await machines.sweep(0)).toBeGreaterThanOrEqual(orphans.length);
    for (const key of orphans) expect(await storeKeys(key)).toEqual([]);
  });

  it("after a consolidated object's upload, before its rows swap: the rows stay in the commit objects", async () => {
    const crash = await crashAt("tail-die", "before-tail-swap", {
      count: 5,
      keys: 5,
      env: { WORKER_CONSOLIDATE_AFTER_MS: "0" },
    });
    expect((await rows(crash.partitionId)).every((row) => row.objectKey.startsWith("commit/"))).toBe(true);
    await expectWholeManifest(crash.partitionId);
    const { worker, served } = await takeOver("tail-after", crash, { WORKER_CONSOLIDATE_AFTER_MS: "0" });
    expect(served).toEqual(crash.acked);
    await eventually("the new owner consolidates", 15_000, async () =>
      (await rows(crash.partitionId)).every((row) => row.objectKey.startsWith("tails/")) ? true : undefined,
    );
    await expectWholeManifest(crash.partitionId);
    await machines.stop(worker);
  });

  it("after a cleaner pass on disk, before its upload: the dirty but whole segments stay the manifest", async () => {
    const crash = await crashAt("clean-die", "after-clean-before-upload", {
      count: 60,
      keys: 4,
      after: async (partitionId) => {
        await eventually("the segments are uploaded", 15_000, async () =>
          (await rows(partitionId)).some((row) => row.kind === "segment") ? true : undefined,
        );
        await harness.client.requestClean({ partitionId });
      },
    });
    const before = await rows(crash.partitionId);
    await expectWholeManifest(crash.partitionId);
    const { worker, served } = await takeOver("clean-after", crash);
    // Nothing the pass removed is gone from the bucket: the old set, whole.
    for (const [offset, text] of crash.acked) expect(served.get(offset)).toBe(text);
    expect((await rows(crash.partitionId)).map((r) => r.objectKey)).toEqual(before.map((r) => r.objectKey));
    await harness.client.requestClean({ partitionId: crash.partitionId });
    const latest = new Map(
      [...crash.acked].map(([offset, text]) => [Number(text.split("-")[0]) % 4, offset]),
    );
    await eventually("the cleaned segments replace the dirty ones", 15_000, async () => {
      const after = await rows(crash.partitionId);
      return after.some(
        (row) => !before.some((old) => old.objectKey === row.objectKey && row.kind === "segment"),
      )
        ? true
        : undefined;
    });
    await expectWholeManifest(crash.partitionId);
    const cleaned = await machines.fetchAll(crash.partitionId);
    for (const offset of latest.values()) expect(cleaned.get(offset)).toBe(crash.acked.get(offset));
    expect(cleaned.size).toBeLessThan(served.size);
    await machines.stop(worker);
  });
});
