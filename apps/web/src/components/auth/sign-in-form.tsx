"use client";

import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { TextField } from "../ui/field";
import type { AuthEntry } from "./after-auth";
import { AuthFormFrame } from "./auth-form-frame";

export function SignInForm({ entry }: { entry: AuthEntry }) {
  const [email, setEmail] = useState(entry.email ?? "");
  const [password, setPassword] = useState("");

  return (
    <AuthFormFrame
      title="Sign in"
      submitLabel="Sign in"
      pendingLabel="Signing in…"
      entry={entry}
      call={() => authClient.signIn.email({ email, password })}
      fallbackError="We could not sign you in. Check your email and password."
      other={{ prompt: "New to Lastword?", path: "/sign-up", label: "Create an account" }}
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
