import { Button } from "./button";

/** A form's submit that, while its action runs, is disabled and says what is happening instead. */
export function SubmitButton(props: {
  label: string;
  pendingLabel: string;
  pending: boolean;
  /** Off for another reason too (a required choice missing). */
  disabled?: boolean;
  variant?: "primary" | "secondary" | "danger";
}) {
  return (
    <Button type="submit" variant={props.variant} disabled={props.pending || props.disabled === true}>
      {props.pending ? props.pendingLabel : props.label}
    </Button>
  );
}
