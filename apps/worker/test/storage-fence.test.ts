import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FENCE_FILE, StaleEpochError, StorageFence } from "../src/ownership/storage-fence";

let dir: string;

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("storage fence", () => {
  it("lets the holder write until a later epoch is written, and refuses an earlier claim", async () => {
    dir = join(await mkdtemp(join(tmpdir(), "lastword-fence-")), "partition");
    const first = await StorageFence.claim(dir, 2, "w-a");
    expect(first.supersededBy()).toBeNull();
    expect(JSON.parse(await readFile(join(dir, FENCE_FILE), "utf8"))).toEqual({ epoch: 2, workerId: "w-a" });
    const second = await StorageFence.claim(dir, 3, "w-b");
    expect(first.supersededBy()).toBe(3);
    expect(second.supersededBy()).toBeNull();
    await expect(StorageFence.claim(dir, 1, "w-c")).rejects.toBeInstanceOf(StaleEpochError);
    expect(second.supersededBy()).toBeNull();
    await rm(dir, { recursive: true, force: true });
    expect(second.supersededBy()).toBeNaN();
  });
});
