import { database } from "@/server/database";

export const dynamic = "force-dynamic";

/** Liveness plus a round trip to Postgres, so a load balancer never routes to a web that cannot serve. */
export async function GET(): Promise<Response> {
  try {
    await database().$queryRaw`SELECT 1`;
    return Response.json({ status: "ok", database: "ok" });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return Response.json({ status: "error", database: message }, { status: 503 });
  }
}
