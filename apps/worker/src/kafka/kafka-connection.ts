import { once } from "node:events";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { recordUsage } from "@lastword/api/usage-counter";
import { SaslError } from "@lastword/kafka-auth";
import {
  ApiKey,
  type DecodedRequest,
  decodeRequest,
  ErrorCode,
  encodeResponse,
  encodeResponseParts,
  FrameReader,
  KafkaProtocolError,
} from "@lastword/kafka-protocol";
import { answeredWithError, type KafkaListenerMetrics, type KafkaOutcome } from "../metrics/kafka-metrics";
import { ADVERTISED_APIS, isAdvertised } from "./advertised-apis";
import { DROP_CONNECTION, routeOf } from "./api-routes";
import type { ClientRole } from "./client-sightings";
import type { ConnectionGuard } from "./connection-guard";
import { errorResponse } from "./error-response";
import { failureAnswer } from "./failure-answer";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import type { KafkaPrincipal, KafkaPrincipals } from "./kafka-principals";
import { type LatestFreeze, readableTopic } from "./latest-view";
import { metered, RequestMeter } from "./request-time";
import { isSaslMechanism, SASL_MECHANISMS, SaslStep } from "./sasl-step";
import { noUsage, type TenantRates } from "./tenant-rates";

/** Kafka's connection.failed.authentication.delay.ms: a failed login is answered, then closed after this. */
export const FAILED_AUTH_CLOSE_DELAY_MS = 100;
/**
 * Received bytes of whole requests held, waiting their turn, before the socket stops reading
 * (requests are served one at a time). A request still arriving is always read to its end,
 * whatever its size up to socket.request.max.bytes: only complete ones wait.
 */
const READ_PAUSE_BYTES = 1 << 20;

type AuthState =
  | { step: "none" }
  | { step: "handshaken"; sasl: SaslStep; raw: boolean }
  | { step: "done"; principal: KafkaPrincipal };

export interface KafkaConnectionDeps {
  ctx: KafkaBrokerContext;
  principals: KafkaPrincipals;
  metrics: KafkaListenerMetrics;
  /** The listener's limits and admission of logins (connection-guard.ts). */
  guard: ConnectionGuard;
  /** The tenants' request-time and fetch quotas on this worker (tenant-rates.ts). */
  rates: TenantRates;
  onClose(connection: KafkaConnection): void;
  /** Told of each request this connection decoded and served, in order (the listener's `onRequest`). */
  onRequest?(apiKey: number, version: number): void;
}

/**
 * One client socket. Requests are read, handled and answered strictly one at a time, in order (as
 * Kafka mutes a channel until its response is sent); acks=0 produces get no answer; the next
 * request waits while the socket cannot take more. Before SASL completes only ApiVersions,
 * SaslHandshake and SaslAuthenticate are served, in frames of at most 64 KiB.
 */
export class KafkaConnection {
  readonly #socket: Socket;
  readonly #deps: KafkaConnectionDeps;
  readonly #reader = new FrameReader();
  readonly #closed = new AbortController();
  readonly #latestPins = new Map<string, LatestFreeze>();
  #auth: AuthState = { step: "none" };
  #busy = false;
  /** Set by a handler whose tenant is over its quota: how long to stop reading after the answer. */
  #muteMs = 0;
  /** Bytes written for the request being served (its answer), for the listener's metrics. */
  #bytesOut = 0;
  /** Whether the answer to the request being served carried a Kafka error code. */
  #answeredError = false;
  #clientId: string | null = null;
  readonly #authTimer: NodeJS.Timeout;
  /** connections.max.idle.ms: refreshed by every byte received and every request answered. */
  readonly #idleTimer: NodeJS.Timeout;
  /** Set once a failed login's answer is out: nothing more is read or served before the close. */
  #closing = false;
  readonly remoteAddress: string;
  clientSoftware: { name: string; version: string } | null = null;

  constructor(socket: Socket, deps: KafkaConnectionDeps) {
    this.#socket = socket;
    this.#deps = deps;
    this.remoteAddress = socket.remoteAddress ?? "";
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.#received(chunk));
    socket.on("error", () => this.close());
    socket.on("close", () => this.close());
    const { limits } = deps.guard;
    this.#authTimer = setTimeout(() => this.#closeFor("auth_timeout"), limits.authenticationTimeoutMs);
    this.#authTimer.unref();
    this.#idleTimer = setTimeout(() => this.#closeFor("idle"), limits.idleMs);
    this.#idleTimer.unref();
  }

  /** Answer bytes written to the socket that the kernel has not taken yet (a client not reading). */
  get pendingResponseBytes(): number {
    return this.#socket.writableLength;
  }

  get principal(): KafkaPrincipal | null {
    return this.#auth.step === "done" ? this.#auth.principal : null;
  }

  close(): void {
    if (this.#closed.signal.aborted) return;
    this.#closed.abort();
    clearTimeout(this.#authTimer);
    clearTimeout(this.#idleTimer);
    this.#socket.destroy();
    this.#deps.onClose(this);
  }

  #closeFor(reason: "auth_timeout" | "idle"): void {
    if (this.#closed.signal.aborted) return;
    this.#deps.guard.closing(reason, this);
    this.close();
  }

  #received(chunk: Buffer): void {
    this.#idleTimer.refresh();
    this.#reader.push(chunk);
    if (this.#reader.bufferedBytes > READ_PAUSE_BYTES && this.#reader.missingBytes === 0)
      this.#socket.pause();
    void this.#pump();
  }

  async #pump(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (;;) {
        if (this.#closed.signal.aborted || this.#closing) return;
        const frame = this.#nextFrame();
        if (!frame) break;
        await this.#served(frame);
        this.#idleTimer.refresh();
        if (this.#socket.writableNeedDrain) await once(this.#socket, "drain").catch(() => undefined);
        if (this.#muteMs > 0) await this.#mute();
      }
      // No whole request is waiting: read on, so the one arriving (of any size) completes.
      if (this.#socket.isPaused()) this.#socket.resume();
    } catch (error) {
      this.#deps.ctx.logger.warn({ err: error }, "kafka connection closed after a failed request");
      this.close();
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Serves one request with its loop time metered (decoding, handling, encoding and writing its
   * answer): what the answer's throttle did not count yet (the encoding and the write after it) is
   * added to the tenant's window, so it weighs on the tenant's next requests. Logins are not
   * charged (as Kafka's request quota starts with a principal): the connection quotas bound them.
   */
  async #served(frame: Buffer): Promise<void> {
    const meter = new RequestMeter();
    const charged = await metered(meter, () => this.#serve(frame, meter));
    const tenantId = this.principal?.tenantId;
    if (tenantId && charged !== null)
      this.#deps.rates.add(tenantId, "requestTimeMsPerSecond", meter.ms - charged);
  }

  // KIP-219: the throttled response went out at once; nothing more is read from this client until
  // the throttle has passed (requests it pipelined meanwhile wait in the socket).
  async #mute(): Promise<void> {
    const ms = this.#muteMs;
    this.#muteMs = 0;
    this.#socket.pause();
    await delay(ms, undefined, { signal: this.#closed.signal }).catch(() => undefined);
  }

  #nextFrame(): Buffer | undefined {
    try {
      return this.#reader.next();
    } catch (error) {
      // Kafka's InvalidReceiveException: a size over socket.request.max.bytes (or over the SASL
      // frame limit before authentication) closes the connection; the guard logs it.
      if (error instanceof KafkaProtocolError && error.code === "FRAME_TOO_LARGE") {
        this.#deps.guard.closing("frame_too_large", this, { error: error.message });
      } else this.#deps.ctx.logger.debug({ err: error }, "kafka frame refused");
      this.close();
      return undefined;
    }
  }

  #write(frame: Buffer): void {
    if (this.#closed.signal.aborted) return;
    this.#bytesOut += frame.length;
    this.#socket.write(frame);
  }

  /**
   * One frame as pieces (encodeResponseParts), leaving in one writev; `written` runs once the socket
   * is done with them (sent, or failed), never before: the pieces may be buffers lent to the answer.
   */
  #writeParts(parts: readonly Buffer[], written: () => void = () => {}): void {
    if (this.#closed.signal.aborted || parts.length === 0) {
      written();
      return;
    }
    this.#socket.cork();
    parts.forEach((part, i) => {
      this.#bytesOut += part.length;
      if (i === parts.length - 1) this.#socket.write(part, () => written());
      else this.#socket.write(part);
    });
    this.#socket.uncork();
  }

  /**
   * Serves one request; the loop time (of `meter`'s) charged to the tenant with the answer, or null
   * for a request that is not a tenant's (before and during login).
   */
  async #serve(frame: Buffer, meter: RequestMeter): Promise<number | null> {
    if (this.#auth.step === "handshaken" && this.#auth.raw) {
      await this.#rawSaslToken(frame);
      return null;
    }
    let request: DecodedRequest;
    try {
      request = decodeRequest(frame);
    } catch (error) {
      const header = error instanceof KafkaProtocolError ? error.header : undefined;
      if (header?.apiKey === ApiKey.ApiVersions && !isAdvertised(ApiKey.ApiVersions, header.apiVersion)) {
        this.#unsupportedApiVersions(header.correlationId);
        return null;
      }
      this.#deps.ctx.logger.debug({ err: error }, "kafka request refused");
      this.close();
      return null;
    }
    this.#clientId = request.header.clientId ?? null;
    this.#deps.onRequest?.(request.apiKey, request.apiVersion);
    const started = performance.now();
    this.#bytesOut = 0;
    this.#answeredError = false;
    const charged = await this.#dispatch(request, meter);
    this.#deps.metrics.request({
      apiKey: request.apiKey,
      version: request.apiVersion,
      outcome: this.#outcome(),
      tenantId: this.principal?.tenantId ?? "",
      seconds: (performance.now() - started) / 1000,
      // The frame plus its 4-byte size prefix, as on the wire.
      bytesIn: frame.length + 4,
      bytesOut: this.#bytesOut,
    });
    return charged;
  }

  #outcome(): KafkaOutcome {
    if (this.#closed.signal.aborted) return "closed";
    if (this.#bytesOut === 0) return "no_answer";
    return this.#answeredError ? "error" : "ok";
  }

  /** Answers one request; the loop time charged to the tenant's request-time quota with the answer. */
  async #dispatch(request: DecodedRequest, meter: RequestMeter): Promise<number | null> {
    const { correlationId } = request.header;
    const reply = (body: object, written?: () => void) => {
      this.#answeredError = answeredWithError(body);
      this.#writeParts(
        encodeResponseParts(request.apiKey, request.apiVersion, correlationId, body as never),
        written,
      );
    };
    if (request.apiKey === ApiKey.ApiVersions) {
      if (!isAdvertised(request.apiKey, request.apiVersion)) {
        this.#unsupportedApiVersions(correlationId);
        return null;
      }
      if (request.apiVersion >= 3) {
        this.clientSoftware = {
          name: request.body.clientSoftwareName,
          version: request.body.clientSoftwareVersion,
        };
      }
      reply({ errorCode: 0, apiKeys: ADVERTISED_APIS, throttleTimeMs: 0 });
      return null;
    }
    if (!isAdvertised(request.apiKey, request.apiVersion)) {
      this.close();
      return null;
    }
    if (request.apiKey === ApiKey.SaslHandshake) {
      this.#handshake(request.apiVersion, request.body.mechanism, reply);
      return null;
    }
    if (request.apiKey === ApiKey.SaslAuthenticate) {
      await this.#authenticate(request.body.authBytes, reply);
      return null;
    }
    const principal = this.principal;
    // Anything else before authentication: Kafka closes the connection.
    if (!principal) {
      this.close();
      return null;
    }
    this.#deps.ctx.sightings.keyUsed(principal.keyId);
    const { tenantId } = principal;
    const usage = noUsage();
    const lent: (() => void)[] = [];
    const answered = () => {
      for (const done of lent.splice(0)) done();
    };
    const session: KafkaSession = {
      principal,
      clientId: this.#clientId,
      clientHost: this.#socket.remoteAddress ?? "",
      closed: this.#closed.signal,
      latestPins: this.#latestPins,
      throttle: (ms, quota) => this.#throttle(request, tenantId, ms, quota),
      charge: (quota, amount) => {
        usage[quota] += amount;
      },
      afterAnswer: (done) => {
        lent.push(done);
      },
    };
    let body: object | null;
    try {
      body = await this.#handle(request, session);
    } catch (error) {
      // The safety net: a handler's failure on a well-framed request is that API's
      // UNKNOWN_SERVER_ERROR answer (as Kafka's KafkaApis answers it), not a closed connection.
      // An acks=0 produce has no answer to carry it: closing is how Kafka tells that client.
      if (this.#closed.signal.aborted) throw error;
      const noAnswer = request.apiKey === ApiKey.Produce && request.body.acks === 0;
      const answer = failureAnswer(request, error);
      const logged = { err: error, apiKey: request.apiKey, apiVersion: request.apiVersion, tenantId };
      if (answer.explained)
        this.#deps.ctx.logger.warn({ ...logged, errorCode: answer.errorCode }, answer.message);
      else this.#deps.ctx.logger.error(logged, "kafka request failed; answered UNKNOWN_SERVER_ERROR");
      if (noAnswer) this.close();
      body = noAnswer ? null : errorResponse(request, answer.errorCode, answer.message);
    }
    // KIP-124: the loop time the request took so far counts against the tenant's request-time
    // quota; over it (or over the fetch quota), the answer carries the throttle and the connection
    // is muted after it, like the produce quota's.
    const charged = meter.ms;
    usage.requestTimeMsPerSecond += charged;
    const over = await this.#deps.rates.charge(tenantId, usage);
    // The same bytes go to the tenant's day counter (the overview's "Fetched today"), write-behind.
    if (usage.fetchBytesPerSecond > 0) {
      void recordUsage(this.#deps.ctx, tenantId, { fetchedBytes: usage.fetchBytesPerSecond });
    }
    if (over.quota) this.#throttle(request, tenantId, over.ms, over.quota);
    if (body !== null && !this.#closed.signal.aborted) reply(this.#withThrottle(body), answered);
    else answered();
    return charged;
  }

  #throttle(request: DecodedRequest, tenantId: string, ms: number, quota: string): void {
    if (ms <= 0) return;
    this.#muteMs = Math.max(this.#muteMs, ms);
    this.#deps.metrics.throttled(request.apiKey, request.apiVersion, tenantId, quota, ms);
  }

  /** The answer with the longest throttle this request earned, in the APIs whose answers carry one. */
  #withThrottle(body: object): object {
    if (!("throttleTimeMs" in body) || this.#muteMs === 0) return body;
    return { ...body, throttleTimeMs: Math.max(Number(body.throttleTimeMs), this.#muteMs) };
  }

  /** The request's answer; null when there is none (acks=0, or the connection was closed instead). */
  async #handle(request: DecodedRequest, session: KafkaSession): Promise<object | null> {
    const { principal } = session;
    const { ctx } = this.#deps;
    const fault = ctx.testFaults?.take(request) ?? null;
    if (fault) ctx.logger.warn({ apiKey: request.apiKey, fault }, "injected a test fault");
    if (fault?.kind === "answer") return fault.body;
    const route = routeOf(request);
    if (!route) {
      this.close();
      return null;
    }
    if (route.sighting) this.#sighted(principal, route.sighting.role, route.sighting.topics(request));
    const answer = await route.serve(ctx, session, request);
    if (answer === DROP_CONNECTION) {
      this.close();
      return null;
    }
    // An injected throttle (Fetch only, test-faults.ts) rides on the real answer.
    return answer !== null && fault?.kind === "throttle"
      ? { ...answer, throttleTimeMs: fault.throttleTimeMs }
      : answer;
  }

  /** Marks this client as a producer or consumer of the tenant's topics named (unknown names: nothing). */
  #sighted(principal: KafkaPrincipal, role: ClientRole, topics: string[]): void {
    const { catalog, sightings } = this.#deps.ctx;
    const who = {
      clientId: this.#clientId ?? "",
      softwareName: this.clientSoftware?.name ?? "",
      softwareVersion: this.clientSoftware?.version ?? "",
    };
    for (const name of new Set(topics)) {
      // A consumer of a topic's view is one of the topic.
      readableTopic(catalog, principal.tenantId, name)
        .then((found) => found && sightings.seen(found.topic.id, role, who))
        .catch(() => undefined);
    }
  }

  // Kafka answers an ApiVersions version it does not serve in the v0 layout, without reading the
  // body, so the client can retry with a version from the list.
  #unsupportedApiVersions(correlationId: number): void {
    this.#answeredError = true;
    this.#write(
      encodeResponse(ApiKey.ApiVersions, 0, correlationId, {
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        apiKeys: ADVERTISED_APIS,
      }),
    );
  }

  #handshake(version: number, mechanism: string, reply: (body: object) => void): void {
    if (this.#auth.step !== "none") {
      reply({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: SASL_MECHANISMS });
      return;
    }
    if (!isSaslMechanism(mechanism)) {
      reply({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: SASL_MECHANISMS });
      return;
    }
    // v0: the tokens that follow are raw frames; v1: they come in SaslAuthenticate requests.
    this.#auth = {
      step: "handshaken",
      sasl: new SaslStep(mechanism, this.#deps.principals),
      raw: version === 0,
    };
    reply({ errorCode: 0, mechanisms: SASL_MECHANISMS });
  }

  async #authenticate(token: Buffer, reply: (body: object) => void): Promise<void> {
    const auth = this.#auth;
    if (auth.step !== "handshaken") {
      reply({
        errorCode: ErrorCode.ILLEGAL_SASL_STATE,
        errorMessage: "SaslAuthenticate before SaslHandshake",
        authBytes: Buffer.alloc(0),
      });
      this.#closeSoon();
      return;
    }
    const refuse = (message: string) => {
      reply({
        errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
        errorMessage: message,
        authBytes: Buffer.alloc(0),
      });
      this.#closeSoon();
    };
    const { guard } = this.#deps;
    const throttled = guard.loginRefusal(this.remoteAddress);
    if (throttled !== null) return refuse(throttled);
    try {
      const outcome = await auth.sasl.next(token);
      const refused = outcome.done ? await guard.admit(this, outcome.principal) : null;
      if (refused !== null) {
        await this.#hold(guard.limits.refusedLoginDelayMs);
        return refuse(refused);
      }
      if (outcome.done) this.#authenticated(outcome.principal);
      reply({ errorCode: 0, errorMessage: null, authBytes: outcome.reply, sessionLifetimeMs: 0n });
    } catch (error) {
      if (!(error instanceof SaslError)) throw error;
      await this.#failedLogin(auth.sasl);
      refuse(error.message);
    }
  }

  /** Counts a failed login; a key id being guessed at has its failures answered only after a delay. */
  async #failedLogin(sasl: SaslStep): Promise<void> {
    await this.#hold(this.#deps.guard.loginFailed(this.remoteAddress, sasl.keyId));
  }

  /** Waits `ms` before an answer (a throttled login's), or until the connection closes. */
  async #hold(ms: number): Promise<void> {
    if (ms > 0) await delay(ms, undefined, { signal: this.#closed.signal }).catch(() => undefined);
  }

  async #rawSaslToken(token: Buffer): Promise<void> {
    if (this.#auth.step !== "handshaken") return;
    const { sasl } = this.#auth;
    if (this.#deps.guard.loginRefusal(this.remoteAddress) !== null) return this.close();
    try {
      const outcome = await sasl.next(token);
      // Raw SASL has no error field: over a limit, closing is the answer.
      if (outcome.done && (await this.#deps.guard.admit(this, outcome.principal)) !== null) {
        await this.#hold(this.#deps.guard.limits.refusedLoginDelayMs);
        return this.close();
      }
      if (outcome.done) this.#authenticated(outcome.principal);
      const framed = Buffer.allocUnsafe(4 + outcome.reply.length);
      framed.writeInt32BE(outcome.reply.length, 0);
      outcome.reply.copy(framed, 4);
      this.#write(framed);
    } catch (error) {
      if (!(error instanceof SaslError)) throw error;
      await this.#failedLogin(sasl);
      // Raw SASL has no error field: closing the connection is the answer.
      this.close();
    }
  }

  #authenticated(principal: KafkaPrincipal): void {
    this.#auth = { step: "done", principal };
    clearTimeout(this.#authTimer);
    this.#reader.maxFrameBytes = this.#deps.guard.limits.socketRequestMaxBytes;
  }

  #closeSoon(): void {
    this.#closing = true;
    this.#socket.pause();
    setTimeout(() => this.close(), FAILED_AUTH_CLOSE_DELAY_MS).unref();
  }
}
