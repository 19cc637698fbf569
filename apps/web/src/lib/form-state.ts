import { type ChangeEvent, useState } from "react";
import { type CheckedFields, fieldProblems, requiresValue } from "./field-checks";

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * One form control's text: `bind` spreads onto a TextField, TextAreaField or SelectField as its
 * value and change handler; `T` narrows a select to its options. `onEdit` is what else a change
 * does (a form clearing the server's last refusal).
 */
export function useInput<T extends string = string>(initial: T, onEdit?: () => void) {
  const [value, set] = useState<T>(initial);
  const onChange = (event: ChangeEvent<Control>) => {
    set(event.target.value as T);
    onEdit?.();
  };
  return { value, set, bind: { value, onChange } };
}

/**
 * A form's own checks (`lib/field-checks.ts`): `errors` go to the fields' `error`, shown once a
 * submit was tried; `guard(run)` is a `Form`'s `onSubmit` that refuses (false) while a field is
 * wrong and runs otherwise.
 */
export function useFieldChecks<K extends string>(fields: CheckedFields<K>) {
  const [tried, setTried] = useState(false);
  const problems = fieldProblems(fields);
  const refused = Object.keys(problems).length > 0;
  const errors = tried ? problems : ({} as Partial<Record<K, string>>);
  return {
    errors,
    /**
     * What the field checked as `name` spreads: its input's value and change handler, its error,
     * and `required` when its checks refuse an empty value.
     */
    field: <B>(name: K, input: { bind: B }) => ({
      ...input.bind,
      error: errors[name],
      ...(requiresValue(fields[name][1]) ? { required: true } : {}),
    }),
    guard: (run: () => void) => (): boolean => {
      setTried(true);
      if (refused) return false;
      run();
      return true;
    },
    /** After a success, so an emptied field is not refused before anyone types. */
    reset: () => setTried(false),
  };
}
