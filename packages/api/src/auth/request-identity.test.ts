import { defaultKeyHasher } from "@better-auth/api-key";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "./request-identity";

describe("hashApiKey", () => {
  it("stores keys as the API-key plugin does", async () => {
    for (const secret of ["lw_abc", "x".repeat(64), "ключ-🔑", ""]) {
      expect(hashApiKey(secret)).toBe(await defaultKeyHasher(secret));
    }
  });
});
