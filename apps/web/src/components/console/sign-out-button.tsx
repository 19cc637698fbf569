"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth-client";
import { Button } from "../ui/button";

/** Signs out, then opens `then` (an invitation page sends the visitor back to itself). */
export function SignOutButton({ then = "/sign-in" }: { then?: string }) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const signOut = async () => {
    setPending(true);
    await authClient.signOut();
    router.push(then);
    router.refresh();
  };
  return (
    <Button variant="secondary" onClick={signOut} disabled={pending}>
      {pending ? "Signing out…" : "Sign out"}
    </Button>
  );
}
