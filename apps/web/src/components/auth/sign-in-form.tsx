"use client";

import { authClient } from "@/lib/auth-client";
import { emailAddress, filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import type { AuthEntry } from "./after-auth";
import { AuthFormFrame } from "./auth-form-frame";
import { EmailField, PasswordField } from "./credential-fields";

export function SignInForm({ entry }: { entry: AuthEntry }) {
  const email = useInput(entry.email ?? "");
  const password = useInput("");
  const checks = useFieldChecks({
    email: [email.value, [filled("Enter the email address you signed up with."), emailAddress]],
    password: [password.value, [filled("Enter your password.")]],
  });

  return (
    <AuthFormFrame
      title="Sign in"
      submitLabel="Sign in"
      pendingLabel="Signing in…"
      entry={entry}
      call={() => authClient.signIn.email({ email: email.value, password: password.value })}
      fallbackError="We could not sign you in. Check your email and password."
      other={{ prompt: "New to Lastword?", path: "/sign-up", label: "Create an account" }}
      guard={checks.guard}
    >
      <EmailField {...checks.field("email", email)} />
      <PasswordField autoComplete="current-password" {...checks.field("password", password)} />
    </AuthFormFrame>
  );
}
