import { describe, expect, it } from "vitest";
import { csvCell, toCsv } from "./csv";

describe("toCsv", () => {
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

  it.each([
    ['=HYPERLINK("http://evil","x")', '"\'=HYPERLINK(""http://evil"",""x"")"'],
    ["+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ["\r=1", '"\'\r=1"'],
  ])("defuses the formula start of %j as text a spreadsheet shows, not runs", (text, cell) => {
    expect(csvCell(text)).toBe(cell);
    expect(toCsv(["v"], [{ v: text }])).toBe(`v\r\n${cell}\r\n`);
  });

  it("leaves other text, and the numbers it writes itself, as they are", () => {
    expect(csvCell("plain = text")).toBe("plain = text");
    expect(csvCell("'quoted")).toBe("'quoted");
    expect(csvCell(-1)).toBe("-1");
    expect(csvCell({ a: "=1" })).toBe('"{""a"":""=1""}"');
  });
});
