import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER, stampPeerAddress } from "../../peer-stamp.mjs";

describe("stampPeerAddress (the web server's first step, server.mjs)", () => {
  it("sets the TCP peer, overwriting what a client sent under that name or as X-Forwarded-For", async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const server = createServer((request, response) => {
      stampPeerAddress(request);
      seen.push({ peer: request.headers[PEER_ADDRESS_HEADER], xff: request.headers["x-forwarded-for"] });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/api/auth/sign-in/email`, {
        headers: { [PEER_ADDRESS_HEADER]: "198.51.100.7", "x-forwarded-for": "198.51.100.8" },
      });
      await fetch(`http://127.0.0.1:${port}/`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(seen).toEqual([
      { peer: "127.0.0.1", xff: "198.51.100.8" },
      { peer: "127.0.0.1", xff: undefined },
    ]);
  });
});
