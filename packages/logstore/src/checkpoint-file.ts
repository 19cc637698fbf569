import fs from "node:fs";
import path from "node:path";
import { fsyncDirectory } from "./fsync-directory";

/** Offset below which records are gone (deleteRecordsBefore, retention). */
export const LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";
/** Offset up to which every segment was fsynced; recovery CRC-checks from the segment holding it. */
export const RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
const VERSION = "0";

/**
 * Reads a one-offset checkpoint (`0\n<offset>\n`, Kafka's versioned text style). A missing or
 * unreadable file yields null: the caller falls back to the safe default.
 */
export function readCheckpoint(dir: string, name: string): number | null {
  const text = readTextFile(dir, name);
  if (text === null) return null;
  const [version, value] = text.split("\n");
  const offset = Number(value);
  if (version !== VERSION || value === "" || !Number.isSafeInteger(offset) || offset < 0) return null;
  return offset;
}

/** Replaces a checkpoint atomically: write a temp file, fsync it, rename over, fsync the dir. */
export function writeCheckpoint(dir: string, name: string, offset: number): void {
  writeFileAtomically(dir, name, `${VERSION}\n${offset}\n`);
}

/** Replaces `dir/name` with `text` atomically (temp file, fsync, rename, fsync the directory). */
export function writeFileAtomically(dir: string, name: string, text: string | Uint8Array): void {
  const target = path.join(dir, name);
  const temp = `${target}.tmp`;
  const fd = fs.openSync(temp, "w");
  try {
    const bytes = typeof text === "string" ? Buffer.from(text) : text;
    let written = 0;
    while (written < bytes.length)
      written += fs.writeSync(fd, bytes, written, bytes.length - written, written);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
  fsyncDirectory(dir);
}

/** `dir/name` as text, or null when it does not exist. */
export function readTextFile(dir: string, name: string): string | null {
  try {
    return fs.readFileSync(path.join(dir, name), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
