import type { Metadata } from "next";
import { authEntry } from "@/components/auth/after-auth";
import { SignInForm } from "@/components/auth/sign-in-form";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  return <SignInForm entry={authEntry(await props.searchParams)} />;
}
