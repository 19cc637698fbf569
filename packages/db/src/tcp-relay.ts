import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay to a real server that a test can cut and restore, so one process loses its database
 * while the shared Postgres server (used by every other suite) keeps running.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  #cut = false;
  #muted = false;
  port = 0;

  private constructor(upstreamHost: string, upstreamPort: number) {
    this.#server = createServer((client) => {
      if (this.#cut) {
        client.destroy();
        return;
      }
      const upstream = connect(upstreamPort, upstreamHost);
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      const close = () => {
        this.#pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on("error", close).on("close", close);
      upstream.on("error", close).on("close", close);
      client.pipe(upstream);
      // Not pipe(): muteReplies() drops the server's bytes; the client's drain still paces them.
      upstream.on("data", (chunk: Buffer) => {
        if (!this.#muted && !client.write(chunk)) upstream.pause();
      });
      client.on("drain", () => upstream.resume());
    });
  }

  /**
   * `listenPort`: the port of a relay closed earlier, so a client that keeps its address reaches the
   * server again (a close() refuses connections, as a stopped server does; this is its restart).
   */
  static async start(upstreamHost: string, upstreamPort: number, listenPort = 0): Promise<TcpProxy> {
    const proxy = new TcpProxy(upstreamHost, upstreamPort);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once("error", reject);
      proxy.#server.listen(listenPort, "127.0.0.1", resolve);
    });
    proxy.port = (proxy.#server.address() as { port: number }).port;
    return proxy;
  }

  /** `url` (a postgresql:// URL) with its host and port pointing at this relay. */
  relayUrl(url: string): string {
    const relayed = new URL(url);
    relayed.hostname = "127.0.0.1";
    relayed.port = String(this.port);
    return relayed.toString();
  }

  /**
   * Keeps passing the client's bytes on but drops the server's answers: a request reaches the
   * server and takes effect, and the client never hears of it (a COMMIT whose reply is lost).
   */
  muteReplies(): void {
    this.#muted = true;
  }

  /** Drops every relayed connection and refuses new ones until restore(). */
  cut(): void {
    this.#cut = true;
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  restore(): void {
    this.#cut = false;
    this.#muted = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
