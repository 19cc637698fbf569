/**
 * A field's rule, in the form's own words: the sentence shown at the field when `value` breaks it,
 * or null. Forms check with these instead of the browser's constraint validation, whose tooltips
 * ("Please fill out this field") say neither which field of ours nor what to type.
 */
export type FieldCheck = (value: string) => string | null;

// The checks `filled` made, so a field checked with one can say it is required (`requiresValue`).
const FILLED = new WeakSet<FieldCheck>();

/** Something other than blanks. */
export function filled(sentence: string): FieldCheck {
  const check: FieldCheck = (value) => (value.trim() === "" ? sentence : null);
  FILLED.add(check);
  return check;
}

/**
 * Whether `checks` refuse an empty value (a `filled` is among them): such a field is `required`,
 * which tells assistive tech and the keyboard what the form's own check will say.
 */
export function requiresValue(checks: readonly FieldCheck[]): boolean {
  return checks.some((check) => FILLED.has(check));
}

/** At least `length` characters, as typed. */
export const atLeast =
  (length: number, sentence: string): FieldCheck =>
  (value) =>
    value.length < length ? sentence : null;

// What an <input type="email"> accepts: one @, something on each side, no blanks.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;

/** An email address (an empty one is `filled`'s to refuse, so it is not refused twice). */
export const emailAddress: FieldCheck = (value) =>
  value.trim() === "" || EMAIL.test(value.trim()) ? null : "Enter an email address such as name@example.com.";

/** A form's fields by name: each value and the checks it must pass, in order. */
export type CheckedFields<K extends string> = Record<
  K,
  readonly [value: string, checks: readonly FieldCheck[]]
>;

/** The first broken rule of each field; fields that pass are absent. */
export function fieldProblems<K extends string>(fields: CheckedFields<K>): Partial<Record<K, string>> {
  const problems: Partial<Record<K, string>> = {};
  for (const name of Object.keys(fields) as K[]) {
    const [value, checks] = fields[name];
    for (const check of checks) {
      const problem = check(value);
      if (problem !== null) {
        problems[name] = problem;
        break;
      }
    }
  }
  return problems;
}
