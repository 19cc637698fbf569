import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ShutdownSequence } from "../src/shutdown";

const silent = pino({ level: "silent" });

describe("shutdown sequence", () => {
  it("runs named steps once, in order, and keeps going past a failing one", async () => {
    const ran: string[] = [];
    const sequence = new ShutdownSequence();
    sequence.add("stop taking work", async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      ran.push("stop taking work");
    });
    sequence.add("close logs", () => {
      ran.push("close logs");
      throw new Error("disk gone");
    });
    sequence.add("release leases", () => {
      ran.push("release leases");
    });
    await Promise.all([sequence.run(silent), sequence.run(silent)]);
    expect(ran).toEqual(["stop taking work", "close logs", "release leases"]);
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
