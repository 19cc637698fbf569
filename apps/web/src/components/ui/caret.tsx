/** The ▾ after a button's text that says it opens a menu or panel (decorative; the role says it). */
export function Caret() {
  return (
    <span aria-hidden="true" className="text-muted">
      ▾
    </span>
  );
}
