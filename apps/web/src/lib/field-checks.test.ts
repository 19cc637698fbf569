import { describe, expect, it } from "vitest";
import { atLeast, emailAddress, fieldProblems, filled, requiresValue } from "./field-checks";

describe("field checks", () => {
  it("names each field's first broken rule, in the form's words", () => {
    const problems = fieldProblems({
      email: ["  ", [filled("Enter the email address."), emailAddress]],
      name: ["Ada", [filled("Enter your name.")]],
      password: ["short", [atLeast(8, "At least 8 characters.")]],
    });
    expect(problems).toEqual({ email: "Enter the email address.", password: "At least 8 characters." });
  });

  it("takes what an email input takes and refuses the rest", () => {
    for (const ok of ["a@b", "ada@example.com", " ada@mail.example.org "])
      expect(emailAddress(ok), ok).toBeNull();
    for (const bad of ["ada", "ada@", "@example.com", "ada @example.com", "a@b@c", "ada@example..com"]) {
      expect(emailAddress(bad), bad).toBe("Enter an email address such as name@example.com.");
    }
  });

  it("calls a field required exactly when one of its checks is a filled", () => {
    expect(requiresValue([filled("Enter the email address."), emailAddress])).toBe(true);
    expect(requiresValue([atLeast(8, "At least 8 characters.")])).toBe(false);
    expect(requiresValue([emailAddress])).toBe(false);
    expect(requiresValue([])).toBe(false);
  });
});
