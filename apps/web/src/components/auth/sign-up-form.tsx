"use client";

import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { TextField } from "../ui/field";
import type { AuthEntry } from "./after-auth";
import { AuthFormFrame } from "./auth-form-frame";

const MIN_PASSWORD_LENGTH = 8;

export function SignUpForm({ entry }: { entry: AuthEntry }) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState(entry.email ?? "");
  const [password, setPassword] = useState("");

  // Signing up also creates the user's organization (tenant); the session starts inside it.
  return (
    <AuthFormFrame
      title="Create your account"
      submitLabel="Create account"
      pendingLabel="Creating your account…"
      entry={entry}
      call={() => authClient.signUp.email({ name, email, password })}
      fallbackError="We could not create your account. Please try again."
      other={{ prompt: "Already have an account?", path: "/sign-in", label: "Sign in" }}
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
