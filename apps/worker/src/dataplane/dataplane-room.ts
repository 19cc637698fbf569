import type { Server } from "node:http";
import { createDataPlaneServer, type DataPlaneServerOptions, listen } from "./dataplane-server";

export interface DataPlaneBind {
  /** Bind address; loopback by default. Port 0 binds an ephemeral port. */
  host?: string;
  port?: number;
  /** Host name other processes reach the data plane by, when it differs from the bind address. */
  advertisedHost?: string;
}

/** Serves the data plane; answers the server and the base URL peers reach it by. */
export async function startDataPlane(
  options: DataPlaneServerOptions,
  bind: DataPlaneBind,
): Promise<{ server: Server; address: string }> {
  const server = createDataPlaneServer(options);
  const bound = await listen(server, bind.host ?? "127.0.0.1", bind.port ?? 0);
  return { server, address: bind.advertisedHost ? advertise(bound, bind.advertisedHost) : bound };
}

function advertise(boundAddress: string, host: string): string {
  const url = new URL(boundAddress);
  url.hostname = host;
  return url.origin;
}
