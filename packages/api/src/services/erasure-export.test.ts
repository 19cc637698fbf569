import { describe, expect, it } from "vitest";
import { toCsv } from "./erasure-export";

describe("evidence CSV", () => {
  it("writes a header and CRLF rows, quoting commas, quotes and newlines (RFC 4180)", () => {
    const csv = toCsv(
      ["a", "b", "c"],
      [
        { a: 1, b: 'say "hi"', c: "x,y" },
        { a: null, b: "two\nlines", c: { k: 1 } },
      ],
    );
    expect(csv).toBe('a,b,c\r\n1,"say ""hi""","x,y"\r\n,"two\nlines","{""k"":1}"\r\n');
  });
});
