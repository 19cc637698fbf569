"use client";

import { authClient } from "@/lib/auth-client";
import { atLeast, emailAddress, filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { TextField } from "../ui/field";
import type { AuthEntry } from "./after-auth";
import { AuthFormFrame } from "./auth-form-frame";
import { EmailField, PasswordField } from "./credential-fields";

const MIN_PASSWORD_LENGTH = 8;

export function SignUpForm({ entry }: { entry: AuthEntry }) {
  const name = useInput("");
  const email = useInput(entry.email ?? "");
  const password = useInput("");
  const checks = useFieldChecks({
    name: [name.value, [filled("Enter your name.")]],
    email: [email.value, [filled("Enter your email address."), emailAddress]],
    password: [
      password.value,
      [atLeast(MIN_PASSWORD_LENGTH, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`)],
    ],
  });

  // Signing up also creates the user's organization (tenant); the session starts inside it.
  return (
    <AuthFormFrame
      title="Create your account"
      submitLabel="Create account"
      pendingLabel="Creating your account…"
      entry={entry}
      call={() => authClient.signUp.email({ name: name.value, email: email.value, password: password.value })}
      fallbackError="We could not create your account. Please try again."
      other={{ prompt: "Already have an account?", path: "/sign-in", label: "Sign in" }}
      guard={checks.guard}
    >
      <TextField
        label="Name"
        autoComplete="name"
        required
        hint="Your organization starts with this name."
        error={checks.errors.name}
        {...name.bind}
      />
      <EmailField error={checks.errors.email} {...email.bind} />
      <PasswordField
        autoComplete="new-password"
        minLength={MIN_PASSWORD_LENGTH}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        error={checks.errors.password}
        {...password.bind}
      />
    </AuthFormFrame>
  );
}
