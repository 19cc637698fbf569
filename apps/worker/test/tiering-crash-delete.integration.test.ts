import { describe, expect, it } from "vitest";
import { eventually } from "./test-topics";
import { useTieringCrash } from "./tiering-crash-steps";

// The last step of tiering-crash's: a worker SIGKILLed after the manifest stopped naming the
// objects a step replaced, before it deleted them. Its own file (own database and bucket): the fault
// point fires at the first superseded object of any partition, so no other test's may be pending.
const { machines, harness, crashAt, rows, expectWholeManifest, takeOver, storeKeys } =
  useTieringCrash("tiering-crash-delete");

describe("crashes while a partition moves into objects of its own", () => {
  it("after the rows swap, before the replaced objects are deleted: the new set serves, the next worker deletes them", async () => {
    const crash = await crashAt("delete-die", "before-superseded-delete", { count: 40, keys: 40 });
    await expectWholeManifest(crash.partitionId);
    expect((await rows(crash.partitionId)).some((row) => row.kind === "segment")).toBe(true);
    const pending = await harness.db.prisma.supersededObject.findMany({
      where: { partitionId: crash.partitionId, deletedAt: null },
    });
    expect(pending.length).toBeGreaterThan(0);
    const { worker, served } = await takeOver("delete-after", crash);
    for (const [offset, text] of crash.acked) expect(served.get(offset)).toBe(text);
    await eventually("the replaced objects are deleted", 15_000, async () =>
      (await machines.pendingSuperseded(crash.partitionId)) === 0 ? true : undefined,
    );
    for (const object of pending) {
      if ((await rows(crash.partitionId)).some((row) => row.objectKey === object.objectKey)) continue;
      expect(await storeKeys(object.objectKey)).toEqual([]);
    }
    await machines.stop(worker);
  });
});
