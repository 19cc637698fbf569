/**
 * Media types (RFC 9110 §8.3.1): `type/subtype` compared case-insensitively, then parameters.
 * Matching a Content-Type by substring let `text/plain; x=application/vnd.lastword.frames` — a
 * type a browser may send cross-origin without a preflight — pass as our binary format, and
 * `application/jsonx` as JSON; a body's format is chosen only by an exact essence.
 */
export interface MediaType {
  /** `type/subtype`, lower-cased. */
  essence: string;
  /** Parameter names lower-cased; values unquoted (and kept as sent). */
  parameters: Map<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A Content-Type header's media type, or null when absent or not well formed. */
export function parseMediaType(header: string | null | undefined): MediaType | null {
  if (!header) return null;
  const semicolon = header.indexOf(";");
  const essence = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  const slash = essence.indexOf("/");
  if (slash < 0 || !TOKEN.test(essence.slice(0, slash)) || !TOKEN.test(essence.slice(slash + 1))) return null;
  const parameters = semicolon < 0 ? new Map<string, string>() : parseParameters(header.slice(semicolon));
  return parameters ? { essence, parameters } : null;
}

/** `; name=value; name="quoted \" value"` …, or null when malformed. */
function parseParameters(text: string): Map<string, string> | null {
  const parameters = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    const match = /^[\t ]*;[\t ]*([^=;\t ]+)=/.exec(text.slice(at));
    if (!match) return /^[\t ;]*$/.test(text.slice(at)) ? parameters : null;
    const name = match[1]!.toLowerCase();
    if (!TOKEN.test(name)) return null;
    at += match[0].length;
    let value = "";
    if (text[at] === '"') {
      at++;
      while (at < text.length && text[at] !== '"') {
        if (text[at] === "\\") at++;
        value += text[at] ?? "";
        at++;
      }
      if (text[at] !== '"') return null;
      at++;
    } else {
      const end = text.indexOf(";", at) < 0 ? text.length : text.indexOf(";", at);
      value = text.slice(at, end).trim();
      if (!TOKEN.test(value)) return null;
      at = end;
    }
    if (!parameters.has(name)) parameters.set(name, value);
    while (text[at] === " " || text[at] === "\t") at++;
  }
  return parameters;
}

export const JSON_MEDIA_TYPE = "application/json";

/** True when the header names exactly `essence` (any parameters; JSON's charset, if given, UTF-8). */
export function hasMediaType(header: string | null | undefined, essence: string): boolean {
  const type = parseMediaType(header);
  if (type?.essence !== essence) return false;
  const charset = type.parameters.get("charset");
  return essence !== JSON_MEDIA_TYPE || charset === undefined || charset.toLowerCase() === "utf-8";
}
