import type { Metadata } from "next";
import { authEntry } from "@/components/auth/after-auth";
import { SignUpForm } from "@/components/auth/sign-up-form";

export const metadata: Metadata = { title: "Sign up" };

export default async function SignUpPage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  return <SignUpForm entry={authEntry(await props.searchParams)} />;
}
