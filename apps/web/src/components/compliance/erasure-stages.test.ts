import { describe, expect, it } from "vitest";
import { barPercent, countdown, deadlineSentence, roughDuration } from "./erasure-stages";

describe("erasure stages", () => {
  it("places marks on the received→deadline bar, clamped to it", () => {
    expect(barPercent(1_000, 11_000, 6_000)).toBe(50);
    expect(barPercent(1_000, 11_000, 0)).toBe(0);
    expect(barPercent(1_000, 11_000, 20_000)).toBe(100);
  });

  it("says a countdown in at most two units, and when it is overdue", () => {
    expect(roughDuration(2 * 86_400_000 + 3 * 3_600_000 + 59_000)).toBe("2 d 3 h");
    expect(countdown(12 * 60_000 + 5_000)).toBe("12 min 5 s left");
    expect(countdown(-5_000)).toBe("overdue by 5 s");
    expect(countdown(400)).toBe("400 ms left");
  });

  it("words a deadline still ahead as future, even once the request closed", () => {
    const deadline = { at: 10 * 86_400_000, label: "1 Jan" };
    expect(deadlineSentence(deadline, 0, true)).toBe("The deadline is 1 Jan: 10 d left.");
    expect(deadlineSentence(deadline, 0, false)).toBe(
      "The deadline is 1 Jan, 10 d from now; the request closed before it.",
    );
    expect(deadlineSentence(deadline, 11 * 86_400_000, false)).toBe("The deadline was 1 Jan.");
  });
});
