import { createServer, type Server, type Socket } from "node:net";
import {
  deriveScramCredential,
  type ScramCredential,
  type ScramMechanism,
  ScramServerExchange,
} from "@lastword/kafka-auth";
import { ApiKey, decodeRequest, encodeResponse, FrameReader } from "@lastword/kafka-protocol";
import { ADVERTISED_APIS } from "../src/kafka/advertised-apis";

/**
 * A test-only Kafka peer that serves ApiVersions, SaslHandshake and SaslAuthenticate for one SCRAM
 * login and closes on anything else. It runs the listener's own SCRAM exchange
 * (`@lastword/kafka-auth`); with `extraAttribute` its server-first message gets that attribute
 * appended, which is all that differs from the listener: the negative test of §5.2 scenario 3.
 */
export interface ScramPeer {
  port: number;
  close(): Promise<void>;
}

export async function startScramPeer(options: {
  mechanism: ScramMechanism;
  /** SaslHandshake's spelling of the mechanism ("SCRAM-SHA-256"). */
  kafkaMechanism: string;
  secret: string;
  extraAttribute?: string;
}): Promise<ScramPeer> {
  const credential = await deriveScramCredential(options.mechanism, options.secret, { iterations: 4096 });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    serve(socket, credential, options);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the SCRAM peer has no TCP address");
  return {
    port: address.port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serve(
  socket: Socket,
  credential: ScramCredential,
  options: { mechanism: ScramMechanism; kafkaMechanism: string; extraAttribute?: string },
): void {
  const reader = new FrameReader();
  const exchange = new ScramServerExchange(options.mechanism);
  let step = 0;
  socket.on("data", (chunk: Buffer) => {
    reader.push(chunk);
    for (let frame = reader.next(); frame; frame = reader.next()) {
      const request = decodeRequest(frame);
      const { correlationId } = request.header;
      const reply = (body: object) =>
        socket.write(encodeResponse(request.apiKey, request.apiVersion, correlationId, body as never));
      if (request.apiKey === ApiKey.ApiVersions) {
        reply({ errorCode: 0, apiKeys: ADVERTISED_APIS, throttleTimeMs: 0 });
      } else if (request.apiKey === ApiKey.SaslHandshake) {
        reply({ errorCode: 0, mechanisms: [options.kafkaMechanism] });
      } else if (request.apiKey === ApiKey.SaslAuthenticate && step === 0) {
        step++;
        exchange.clientFirst(request.body.authBytes);
        const serverFirst = exchange.serverFirst(credential).toString();
        const extra = options.extraAttribute === undefined ? "" : `,${options.extraAttribute}`;
        reply({ errorCode: 0, errorMessage: null, authBytes: Buffer.from(serverFirst + extra) });
      } else if (request.apiKey === ApiKey.SaslAuthenticate && step === 1) {
        step++;
        reply({ errorCode: 0, errorMessage: null, authBytes: exchange.clientFinal(request.body.authBytes) });
      } else {
        socket.destroy();
      }
    }
  });
}
