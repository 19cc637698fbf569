import { InviteMemberForm } from "@/components/members/invite-member-form";
import { MemberList } from "@/components/members/member-list";
import { consoleRoute } from "../console-route";

const route = consoleRoute(
  "Members",
  <>
    Roles: admins manage everything; developers work with topics, records and keys; compliance reads topic
    metadata and runs erasure requests but never sees record values; viewers read.
  </>,
  [MemberList, InviteMemberForm],
);

export const metadata = route.metadata;

export default function MembersPage() {
  return route.page;
}
