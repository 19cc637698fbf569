import { describe, expect, it } from "vitest";
import { CleanerHealthBook } from "../src/cleaner/cleaner-health";

describe("cleaner failure isolation", () => {
  it("backs off exponentially, then holds the partition", () => {
    const book = new CleanerHealthBook(3, 1_000);
    expect(book.mayRun("p", 1, 0)).toBe(true);
    expect(book.recordFailure("p", 1, "corrupt", 0)).toMatchObject({
      failures: 1,
      retryAtMs: 1_000,
      held: false,
    });
    expect(book.mayRun("p", 1, 999)).toBe(false);
    expect(book.mayRun("p", 1, 1_000)).toBe(true);
    expect(book.recordFailure("p", 1, "corrupt", 1_000)).toMatchObject({ failures: 2, retryAtMs: 3_000 });
    expect(book.recordFailure("p", 1, "corrupt", 3_000)).toMatchObject({
      failures: 3,
      retryAtMs: null,
      held: true,
    });
    expect(book.mayRun("p", 1, 1e12)).toBe(false);
    expect(book.state("p")?.sinceMs).toBe(0);
  });

  it("forgives a held partition when its config changes or a pass is requested", () => {
    const book = new CleanerHealthBook(1, 1_000);
    book.recordFailure("p", 1, "boom", 0);
    expect(book.mayRun("p", 1, 5_000)).toBe(false);
    expect(book.mayRun("p", 2, 5_000)).toBe(true);
    expect(book.state("p")).toBeNull();
    book.recordFailure("q", 1, "boom", 0);
    book.forgive("q");
    expect(book.mayRun("q", 1, 0)).toBe(true);
  });

  it("keeps each partition's failures to itself", () => {
    const book = new CleanerHealthBook(2, 1_000);
    book.recordFailure("broken", 1, "crc", 0);
    expect(book.mayRun("healthy", 1, 0)).toBe(true);
    expect([...book.uncleanable().keys()]).toEqual(["broken"]);
    book.recordSuccess("broken");
    expect(book.uncleanable().size).toBe(0);
  });
});
