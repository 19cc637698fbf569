"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { TextField } from "../ui/field";
import { type AuthEntry, afterAuthPath, authEntryQuery } from "./after-auth";
import { AuthFormFrame } from "./auth-form-frame";

export function SignInForm({ entry }: { entry: AuthEntry }) {
  const router = useRouter();
  const [email, setEmail] = useState(entry.email ?? "");
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const signIn = async () => {
    setPending(true);
    setError(null);
    const result = await authClient.signIn.email({ email, password });
    if (result.error) {
      setError(result.error.message ?? "We could not sign you in. Check your email and password.");
      setPending(false);
      return;
    }
    router.push(afterAuthPath(entry.invitationId));
    router.refresh();
  };

  return (
    <AuthFormFrame
      title="Sign in"
      submitLabel="Sign in"
      pendingLabel="Signing in…"
      pending={pending}
      error={error}
      onSubmit={signIn}
      footer={
        <>
          New to Lastword?{" "}
          <Link
            className="font-medium text-accent underline-offset-2 hover:underline"
            href={`/sign-up${authEntryQuery(entry)}`}
          >
            Create an account
          </Link>
        </>
      }
    >
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
        autoComplete="current-password"
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
    </AuthFormFrame>
  );
}
