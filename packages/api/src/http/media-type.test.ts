import { describe, expect, it } from "vitest";
import { hasMediaType, JSON_MEDIA_TYPE, parseMediaType } from "./media-type";

describe("media types", () => {
  it("compares type/subtype case-insensitively and reads parameters, quoted or not", () => {
    expect(parseMediaType('Application/JSON ; Charset="UTF-8"; q=1')).toEqual({
      essence: "application/json",
      parameters: new Map([
        ["charset", "UTF-8"],
        ["q", "1"],
      ]),
    });
    expect(parseMediaType('text/plain; a="x; \\"y\\""')?.parameters.get("a")).toBe('x; "y"');
  });

  it("never takes a media type named only in a parameter or as a prefix", () => {
    for (const header of [
      "text/plain; x=application/vnd.lastword.frames",
      'text/plain; x="application/vnd.lastword.frames"',
      "application/vnd.lastword.framesx",
      "application/jsonx",
      "application/json-patch+json",
    ]) {
      expect(hasMediaType(header, "application/vnd.lastword.frames"), header).toBe(false);
      expect(hasMediaType(header, JSON_MEDIA_TYPE), header).toBe(false);
    }
  });

  it("refuses malformed headers and JSON in another charset", () => {
    for (const header of [
      "",
      "json",
      "application/",
      "/json",
      "a b/c",
      "application/json; charset",
      'a/b; x="open',
    ]) {
      expect(parseMediaType(header), header).toBeNull();
    }
    expect(hasMediaType("application/json; charset=iso-8859-1", JSON_MEDIA_TYPE)).toBe(false);
    expect(hasMediaType("application/json;charset=utf-8", JSON_MEDIA_TYPE)).toBe(true);
  });
});
