import type { ApiServer } from "@lastword/api";

/**
 * A REST call to an in-process control plane (`server.handleRest`, never over a socket) as
 * `apiKey` under `publicUrl`: the status, the headers and the JSON answer.
 */
export async function restCall(
  server: ApiServer,
  publicUrl: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await server.handleRest(
    new Request(`${publicUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}
