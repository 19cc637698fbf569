import { type ChangeEvent, type FormEvent, useState } from "react";

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * One form control's text: `bind` spreads onto a TextField, TextAreaField or SelectField as its
 * value and change handler; `T` narrows a select to its options.
 */
export function useInput<T extends string = string>(initial: T) {
  const [value, set] = useState<T>(initial);
  const bind = { value, onChange: (event: ChangeEvent<Control>) => set(event.target.value as T) };
  return { value, set, bind };
}

/** A form's submit handler: the browser's own submit (a page load) is always prevented. */
export function onSubmit(run: () => void) {
  return (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    run();
  };
}
