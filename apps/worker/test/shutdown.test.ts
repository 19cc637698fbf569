import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ShutdownSequence } from "../src/shutdown";

const silent = pino({ level: "silent" });

describe("shutdown sequence", () => {
  it("runs named steps once, in order, and keeps going past a failing one", async () => {
    const ran: string[] = [];
    const sequence = new ShutdownSequence();
    let finishFirst = () => {};
    const firstFinishes = new Promise<void>((resolve) => {
      finishFirst = resolve;
    });
    sequence.add("stop taking work", async () => {
      ran.push("stop taking work: started");
      await firstFinishes;
      ran.push("stop taking work");
    });
    sequence.add("close logs", () => {
      ran.push("close logs");
      throw new Error("disk gone");
    });
    sequence.add("release leases", () => {
      ran.push("release leases");
    });
    const runs = Promise.all([sequence.run(silent), sequence.run(silent)]);
    // The first step is running (once, though run twice) and no later one has started.
    await expect.poll(() => ran).toEqual(["stop taking work: started"]);
    finishFirst();
    await runs;
    expect(ran).toEqual(["stop taking work: started", "stop taking work", "close logs", "release leases"]);
  });

  it("moves on from a step that hangs past its timeout", async () => {
    const ran: string[] = [];
    const sequence = new ShutdownSequence(20);
    sequence.add("hangs", () => new Promise<void>(() => undefined));
    sequence.add("close database", () => {
      ran.push("close database");
    });
    await sequence.run(silent);
    expect(ran).toEqual(["close database"]);
  });
});
