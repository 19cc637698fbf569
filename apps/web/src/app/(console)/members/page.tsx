import type { Metadata } from "next";
import { InviteMemberForm } from "@/components/members/invite-member-form";
import { MemberList } from "@/components/members/member-list";
import { ConsolePage } from "@/components/ui/console-page";

export const metadata: Metadata = { title: "Members" };

export default function MembersPage() {
  return (
    <ConsolePage
      title="Members"
      intro={
        <>
          Roles: admins manage everything; developers work with topics, records and keys; compliance reads
          topic metadata and runs erasure requests but never sees record values; viewers read.
        </>
      }
    >
      <MemberList />
      <InviteMemberForm />
    </ConsolePage>
  );
}
