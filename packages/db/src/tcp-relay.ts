import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay to a real server that a test can cut, freeze (blackhole) and restore, so one process
 * loses its database while the shared Postgres server (used by every other suite) keeps running.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  /** Connections accepted while frozen, relayed once thawed. */
  readonly #waiting = new Set<Socket>();
  #cut = false;
  #muted = false;
  #frozen = false;
  port = 0;

  readonly #upstreamHost: string;
  readonly #upstreamPort: number;

  private constructor(upstreamHost: string, upstreamPort: number) {
    this.#upstreamHost = upstreamHost;
    this.#upstreamPort = upstreamPort;
    this.#server = createServer((client) => {
      if (this.#cut) {
        client.destroy();
        return;
      }
      if (this.#frozen) {
        this.#waiting.add(client);
        const forget = () => this.#waiting.delete(client);
        client.on("error", forget).on("close", forget);
        return;
      }
      this.#relay(client);
    });
  }

  #relay(client: Socket): void {
    const upstream = connect(this.#upstreamPort, this.#upstreamHost);
    const pair: [Socket, Socket] = [client, upstream];
    this.#pairs.add(pair);
    const close = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
    // Not pipe(): freeze() holds both directions and muteReplies() drops the server's bytes, while
    // each side's drain still paces the other.
    client.on("data", (chunk: Buffer) => {
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on("drain", () => {
      if (!this.#frozen) client.resume();
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!this.#muted && !client.write(chunk)) upstream.pause();
    });
    client.on("drain", () => {
      if (!this.#frozen) upstream.resume();
    });
    if (this.#frozen) {
      client.pause();
      upstream.pause();
    }
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

  /**
   * A blackhole: new connections are accepted and relayed connections stay open, but no byte moves
   * either way until restore() (a frozen server, or a path dropping packets), so a client hears
   * nothing and only its own timeouts end the wait. restore() delivers what was held, as a server
   * that wakes up does.
   */
  freeze(): void {
    this.#frozen = true;
    for (const [client, upstream] of this.#pairs) {
      client.pause();
      upstream.pause();
    }
  }

  /** Drops every relayed connection and refuses new ones until restore(). */
  cut(): void {
    this.#cut = true;
    for (const client of this.#waiting) client.destroy();
    this.#waiting.clear();
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  restore(): void {
    this.#cut = false;
    this.#muted = false;
    if (!this.#frozen) return;
    this.#frozen = false;
    for (const [client, upstream] of this.#pairs) {
      client.resume();
      upstream.resume();
    }
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const client of waiting) this.#relay(client);
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
