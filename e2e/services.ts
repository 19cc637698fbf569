import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";

/** A child process whose output goes to a log file we can quote when it fails to start. */
export interface Service {
  name: string;
  child: ChildProcess;
  logPath: string;
}

export function startService(
  name: string,
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logDir: string },
): Service {
  const logPath = join(options.logDir, `${name}.log`);
  const log = createWriteStream(logPath);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  return { name, child, logPath };
}

export async function tailOf(service: Service, lines = 40): Promise<string> {
  const text = await readFile(service.logPath, "utf8").catch(() => "");
  return text.split("\n").slice(-lines).join("\n");
}

/** Resolves when `service` prints a line containing `marker`; rejects if it exits or the time runs out. */
export function waitForOutput(service: Service, marker: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => finish(new Error(`${service.name} did not print "${marker}" in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString("utf8")).slice(-10_000);
      if (seen.includes(marker)) finish();
    };
    const onExit = (code: number | null) =>
      finish(new Error(`${service.name} exited (code ${code}) before "${marker}"`));
    function finish(error?: Error) {
      clearTimeout(timer);
      service.child.stdout?.off("data", onData);
      service.child.off("exit", onExit);
      if (error) reject(error);
      else resolve();
    }
    service.child.stdout?.on("data", onData);
    service.child.once("exit", onExit);
  });
}

/** Polls `url` until it answers 2xx. */
export async function waitForHttp(service: Service, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null)
      throw new Error(`${service.name} exited (code ${service.child.exitCode})`);
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer 2xx within ${timeoutMs} ms`);
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
export async function stopService(service: Service, graceMs = 5_000): Promise<void> {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("could not determine a free port"));
      });
    });
  });
}
