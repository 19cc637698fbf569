import { Redis } from "ioredis";
import pg from "pg";

// `npm start` must fail fast with one sentence when a dependency is missing, not a stack trace.
const CONNECT_TIMEOUT_MS = 4_000;

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

/** null when `probe` answers, else `refusal`; `close` runs either way. */
async function reachable(
  probe: () => Promise<unknown>,
  close: () => Promise<unknown> | unknown,
  refusal: string,
): Promise<string | null> {
  try {
    await probe();
    return null;
  } catch {
    return refusal;
  } finally {
    await close();
  }
}

export function checkPostgres(databaseUrl: string): Promise<string | null> {
  const server = new URL(databaseUrl);
  server.pathname = "/postgres";
  const client = new pg.Client({
    connectionString: server.toString(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  return reachable(
    async () => {
      await client.connect();
      await client.query("SELECT 1");
    },
    () => client.end().catch(() => {}),
    `Cannot reach PostgreSQL at ${redact(databaseUrl)}: start it (\`docker run -d -p 127.0.0.1:5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=lastword postgres:16\`, ` +
      "or `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`) or set DATABASE_URL.",
  );
}

export function checkRedis(redisUrl: string): Promise<string | null> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  return reachable(
    async () => {
      await redis.connect();
      await redis.ping();
    },
    () => redis.disconnect(),
    `Cannot reach Redis at ${redact(redisUrl)}: start it (\`docker run -d -p 127.0.0.1:6379:6379 redis:7\`, ` +
      'or `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`) or set REDIS_URL.',
  );
}
