import { type ChildProcess, spawn } from "node:child_process";

// The commands that run Lastword's processes. `npm start` and the container images
// (docker-compose.yml) start exactly these, so a test can hold them to it.
export const MIGRATE_COMMAND = "npm run db:migrate";
export const WEB_COMMAND = "npm run start:web";
export const WORKER_COMMAND = "npm run start:worker";
export const BUILD_COMMAND = "npm run build";

/**
 * Starts one of these commands as `npm start` does, so a test that runs one runs it the same way:
 * through a shell, in a process group of its own (`npm run` → shell → node is a chain, and a
 * signal to the shell alone would leave the server running; stopping signals the whole group),
 * its output piped for the caller to prefix or log.
 */
export function spawnInProcessGroup(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(command, { cwd, env, shell: true, detached: true, stdio: ["ignore", "pipe", "pipe"] });
}
