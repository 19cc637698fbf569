import { listMembers } from "../../services/member.service";
import { protectedProcedure } from "../../trpc/access";
import { listMembersInput, listMembersOutput } from "./list-members.schema";

export const listMembersProcedure = protectedProcedure("members:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/members",
      tags: ["members"],
      summary: "Members and pending invitations",
    },
  })
  .input(listMembersInput)
  .output(listMembersOutput)
  .query(({ ctx }) => listMembers(ctx.deps, ctx.identity));
