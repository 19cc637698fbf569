import type { Metadata } from "next";
import { InviteMemberForm } from "@/components/members/invite-member-form";
import { MemberList } from "@/components/members/member-list";

export const metadata: Metadata = { title: "Members" };

export default function MembersPage() {
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Members</h1>
        <p className="mt-1 text-sm text-muted">
          Roles: admins manage everything; developers work with topics, records and keys; compliance reads
          topic metadata and runs erasure requests but never sees record values; viewers read.
        </p>
      </div>
      <MemberList />
      <InviteMemberForm />
    </div>
  );
}
