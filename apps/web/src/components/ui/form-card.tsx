import type { ReactNode } from "react";
import { Card } from "./card";
import { Form } from "./form";

/**
 * A card that is one form: the card's heading, its description, then the form, named by the same
 * title (`role=form` needs a name; the e2e specs and assistive tech find it by it). `after` is what
 * the card shows below its form (a search's results). The console's task cards (produce, find a
 * key, file a request, invite a member…) all take this shape, so it has one home here.
 */
export function FormCard({
  title,
  description,
  onSubmit,
  className,
  children,
  after,
}: {
  title: string;
  description?: ReactNode;
  onSubmit: () => unknown;
  className: string;
  children: ReactNode;
  after?: ReactNode;
}) {
  return (
    <Card title={title} description={description}>
      <Form aria-label={title} onSubmit={onSubmit} className={className}>
        {children}
      </Form>
      {after}
    </Card>
  );
}
