"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { TextField } from "../ui/field";
import { type AuthEntry, afterAuthPath, authEntryQuery } from "./after-auth";
import { AuthFormFrame } from "./auth-form-frame";

const MIN_PASSWORD_LENGTH = 8;

export function SignUpForm({ entry }: { entry: AuthEntry }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [email, setEmail] = useState(entry.email ?? "");
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Signing up also creates the user's organization (tenant); the session starts inside it.
  const signUp = async () => {
    setPending(true);
    setError(null);
    const result = await authClient.signUp.email({ name, email, password });
    if (result.error) {
      setError(result.error.message ?? "We could not create your account. Please try again.");
      setPending(false);
      return;
    }
    router.push(afterAuthPath(entry.invitationId));
    router.refresh();
  };

  return (
    <AuthFormFrame
      title="Create your account"
      submitLabel="Create account"
      pendingLabel="Creating your account…"
      pending={pending}
      error={error}
      onSubmit={signUp}
      footer={
        <>
          Already have an account?{" "}
          <Link
            className="font-medium text-accent underline-offset-2 hover:underline"
            href={`/sign-in${authEntryQuery(entry)}`}
          >
            Sign in
          </Link>
        </>
      }
    >
      <TextField
        label="Name"
        autoComplete="name"
        required
        value={name}
        onChange={(event) => setName(event.target.value)}
        hint="Your organization starts with this name."
      />
      <TextField
        label="Email"
        type="email"
        autoComplete="email"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <TextField
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
      />
    </AuthFormFrame>
  );
}
