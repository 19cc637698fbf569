import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LEADER_EPOCH_CHECKPOINT, LeaderEpochHistory } from "../src/hosting/leader-epochs";

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "lastword-epochs-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("leader epoch history", () => {
  it("persists each assignment so the next owner, loading the directory, sees the same history", () => {
    const dir = freshDir();
    const first = LeaderEpochHistory.load(dir);
    expect(first.entries).toEqual([]);
    first.assign(1, 0);
    first.assign(3, 10);
    expect(readFileSync(join(dir, LEADER_EPOCH_CHECKPOINT), "utf8")).toBe("0\n2\n1 0\n3 10\n");
    const next = LeaderEpochHistory.load(dir);
    expect(next.entries).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 10 },
    ]);
    expect(next.latestEpoch).toBe(3);
  });

  it("ignores an epoch not above the latest, and replaces an epoch that wrote nothing", () => {
    const history = LeaderEpochHistory.load(freshDir());
    history.assign(2, 0);
    history.assign(4, 5);
    history.assign(3, 9);
    history.assign(4, 9);
    expect(history.entries.map((e) => e.epoch)).toEqual([2, 4]);
    // Epoch 5 starts where epoch 4 did (4 appended nothing): 4 goes, as Kafka's assign drops it.
    history.assign(5, 5);
    expect(history.entries).toEqual([
      { epoch: 2, startOffset: 0 },
      { epoch: 5, startOffset: 5 },
    ]);
  });

  it("answers Kafka's end offsets: current → log end, older → next epoch's start, unknown → -1", () => {
    const history = LeaderEpochHistory.load(freshDir());
    history.assign(2, 0);
    history.assign(4, 7);
    history.assign(6, 12);
    expect(history.endOffsetFor(6, 20)).toEqual({ leaderEpoch: 6, endOffset: 20 });
    expect(history.endOffsetFor(4, 20)).toEqual({ leaderEpoch: 4, endOffset: 12 });
    // An epoch with no entry of its own ended where the next known one began, named by the one below.
    expect(history.endOffsetFor(5, 20)).toEqual({ leaderEpoch: 4, endOffset: 12 });
    // Below the earliest: the requested epoch, ending where the history starts.
    expect(history.endOffsetFor(1, 20)).toEqual({ leaderEpoch: 1, endOffset: 0 });
    expect(history.endOffsetFor(7, 20)).toEqual({ leaderEpoch: -1, endOffset: -1 });
    expect(history.endOffsetFor(-1, 20)).toEqual({ leaderEpoch: -1, endOffset: -1 });
    expect([0, 6, 7, 11, 12, 30].map((o) => history.epochAt(o))).toEqual([2, 2, 4, 4, 6, 6]);
  });

  it("an unreadable checkpoint starts an empty history rather than a wrong one", () => {
    const dir = freshDir();
    writeFileSync(join(dir, LEADER_EPOCH_CHECKPOINT), "0\n2\n1 0\nnot-a-line\n");
    expect(LeaderEpochHistory.load(dir).entries).toEqual([]);
    writeFileSync(join(dir, LEADER_EPOCH_CHECKPOINT), "9\n1\n1 0\n");
    expect(LeaderEpochHistory.load(dir).entries).toEqual([]);
  });
});
