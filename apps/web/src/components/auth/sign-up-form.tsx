"use client";

import type { AuthCallResult } from "@/lib/auth-action";
import { authClient } from "@/lib/auth-client";
import { atLeast, emailAddress, filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { VERIFIED_CALLBACK } from "../console/verification-notice";
import { TextField } from "../ui/field";
import type { AuthEntry } from "./after-auth";
import { AuthFormFrame } from "./auth-form-frame";
import { EmailField, PasswordField } from "./credential-fields";

const MIN_PASSWORD_LENGTH = 8;

export function SignUpForm({ entry }: { entry: AuthEntry }) {
  const name = useInput("");
  const organization = useInput("");
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
      call={() =>
        signUpNamingOrganization(
          { name: name.value, email: email.value, password: password.value },
          organization.value.trim(),
        )
      }
      fallbackError="We could not create your account. Please try again."
      other={{ prompt: "Already have an account?", path: "/sign-in", label: "Sign in" }}
      guard={checks.guard}
    >
      <TextField label="Name" autoComplete="name" {...checks.field("name", name)} />
      <TextField
        label="Organization name"
        autoComplete="organization"
        maxLength={100}
        hint="Your team or company; left empty, it is named after you. You can rename it in Settings."
        {...organization.bind}
      />
      <EmailField {...checks.field("email", email)} />
      <PasswordField
        autoComplete="new-password"
        minLength={MIN_PASSWORD_LENGTH}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        {...checks.field("password", password)}
      />
    </AuthFormFrame>
  );
}

/**
 * Signs up (which creates the person's organization under their own name, in the same transaction
 * as the account) and then names the organization as asked. The account exists once the first call
 * succeeds, so a failed rename does not fail the sign-up: the organization keeps the person's name,
 * and Settings renames it.
 */
async function signUpNamingOrganization(
  account: { name: string; email: string; password: string },
  organization: string,
): Promise<AuthCallResult> {
  const result = await authClient.signUp.email({ ...account, callbackURL: VERIFIED_CALLBACK });
  if (result.error || organization === "" || organization === account.name) return result;
  await fetch("/api/trpc/tenant.rename", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: organization }),
  }).catch(() => undefined);
  return result;
}
