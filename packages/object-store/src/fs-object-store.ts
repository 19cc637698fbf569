import { randomBytes } from "node:crypto";
import { type FileHandle, link, mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  assertObjectKey,
  assertRange,
  type ByteRange,
  type KeptVersions,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
  type PutOptions,
} from "./object-store";
import { exactly } from "./sized-stream";

const TEMP_SUFFIX = ".tmp-";
const LOCK_SUFFIX = ".lock";
/** A lock older than this was left by a crashed writer (a put holds one for one rename). */
const STALE_LOCK_MS = 10_000;

function etagOf(info: { ino: number | bigint; size: number | bigint; mtimeMs: number }): string {
  return `"${info.ino.toString(16)}-${info.size.toString(16)}-${Math.round(info.mtimeMs * 1000).toString(16)}"`;
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

async function syncDir(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Objects as files under one root: the store `npm start` uses (`.lastword/objects`). A put writes a
 * temp file, fsyncs it, and moves it into place (rename, or link for `ifNoneMatch` so an existing
 * object is never replaced), then fsyncs the directory: an acknowledged put survives a crash, and a
 * reader sees the old bytes or the new, never a torn object. Temp and lock files are skipped by list.
 */
export class FsObjectStore implements ObjectStore {
  readonly kind = "fs";
  readonly conditionalWrites = true;

  constructor(readonly root: string) {}

  #path(key: string): string {
    assertObjectKey(key);
    const name = key.slice(key.lastIndexOf("/") + 1);
    if (name.includes(TEMP_SUFFIX) || name.endsWith(LOCK_SUFFIX)) {
      throw new ObjectStoreError(
        "INVALID_KEY",
        `object key ${JSON.stringify(key)} names a temp or lock file`,
      );
    }
    return join(this.root, ...key.split("/"));
  }

  async put(key: string, body: Uint8Array, options: PutOptions = {}): Promise<ObjectInfo> {
    return this.#write(key, options, (handle) => handle.writeFile(body));
  }

  async putStream(key: string, body: Readable, size: number, options: PutOptions = {}): Promise<ObjectInfo> {
    const sized = exactly(size, key);
    return this.#write(key, options, (handle) =>
      pipeline(body, sized, async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) await handle.write(chunk);
      }),
    );
  }

  // The temp file is filled by `fill`, fsynced, then moved into place under the put's condition.
  async #write(
    key: string,
    options: PutOptions,
    fill: (handle: FileHandle) => Promise<void>,
  ): Promise<ObjectInfo> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}${TEMP_SUFFIX}${randomBytes(6).toString("hex")}`;
    try {
      const handle = await open(temp, "wx");
      try {
        await fill(handle);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (options.ifNoneMatch) await this.#linkNew(temp, path, key);
      else if (options.ifMatch !== undefined) await this.#replaceIfMatch(temp, path, key, options.ifMatch);
      else await rename(temp, path);
    } finally {
      await rm(temp, { force: true });
    }
    await syncDir(dirname(path));
    const info = await stat(path);
    return { key, size: info.size, etag: etagOf(info) };
  }

  async #linkNew(temp: string, path: string, key: string): Promise<void> {
    try {
      await link(temp, path);
    } catch (error) {
      if (isCode(error, "EEXIST")) throw new ObjectStoreError("PRECONDITION_FAILED", `object ${key} exists`);
      throw error;
    }
  }

  // A lock file (O_EXCL) makes check-then-rename one step for every process sharing the root.
  async #replaceIfMatch(temp: string, path: string, key: string, etag: string): Promise<void> {
    const lock = await this.#lock(`${path}${LOCK_SUFFIX}`, key);
    try {
      const current = await stat(path).catch((error) =>
        isCode(error, "ENOENT") ? null : Promise.reject(error),
      );
      if (!current || etagOf(current) !== etag) {
        throw new ObjectStoreError("PRECONDITION_FAILED", `object ${key} is not at etag ${etag}`);
      }
      await rename(temp, path);
    } finally {
      await lock.close();
      await unlink(`${path}${LOCK_SUFFIX}`).catch(() => undefined);
    }
  }

  async #lock(lockPath: string, key: string): Promise<FileHandle> {
    try {
      return await open(lockPath, "wx");
    } catch (error) {
      if (!isCode(error, "EEXIST")) throw error;
      const held = await stat(lockPath).catch(() => null);
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
        await unlink(lockPath).catch(() => undefined);
        return open(lockPath, "wx");
      }
      throw new ObjectStoreError("PRECONDITION_FAILED", `object ${key} is being replaced concurrently`);
    }
  }

  async get(key: string, range?: ByteRange): Promise<Buffer> {
    assertRange(range);
    const handle = await this.#open(key);
    try {
      const { size } = await handle.stat();
      const offset = Math.min(range?.offset ?? 0, size);
      const length = Math.min(range?.length ?? size - offset, size - offset);
      const out = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(out, done, length - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done === length ? out : out.subarray(0, done);
    } finally {
      await handle.close();
    }
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    assertRange(range);
    const handle = await this.#open(key);
    // Read from the handle opened now: a replacement renamed in later does not change what is read.
    const { size } = await handle.stat().catch(async (error) => {
      await handle.close();
      throw error;
    });
    const start = Math.min(range?.offset ?? 0, size);
    const end = Math.min(range?.length === undefined ? size : start + range.length, size);
    if (start === end) {
      await handle.close();
      return Readable.from([]);
    }
    return handle.createReadStream({ start, end: end - 1 });
  }

  /** The object's file opened for reading; NOT_FOUND when there is none. */
  #open(key: string): Promise<FileHandle> {
    return open(this.#path(key), "r").catch((error) => {
      if (isCode(error, "ENOENT")) throw new ObjectStoreError("NOT_FOUND", `no object ${key}`);
      throw error;
    });
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const info = await stat(this.#path(key)).catch((error) => {
      if (isCode(error, "ENOENT")) return null;
      throw error;
    });
    return info?.isFile() ? { key, size: info.size, etag: etagOf(info) } : null;
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    const keys: string[] = [];
    await this.#walk(this.root, keys);
    keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const key of keys) {
      if (!key.startsWith(prefix)) continue;
      const info = await this.head(key);
      if (info) yield info;
    }
  }

  async #walk(dir: string, out: string[]): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error) => {
      if (isCode(error, "ENOENT")) return [];
      throw error;
    });
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await this.#walk(path, out);
      else if (entry.isFile() && !entry.name.includes(TEMP_SUFFIX) && !entry.name.endsWith(LOCK_SUFFIX)) {
        out.push(relative(this.root, path).split(sep).join("/"));
      }
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.#path(key);
    await rm(path, { force: true });
    await syncDir(dirname(path)).catch((error) =>
      isCode(error, "ENOENT") ? undefined : Promise.reject(error),
    );
  }

  /** A deleted file is gone: nothing is kept. */
  async keptVersions(): Promise<KeptVersions> {
    return { versioning: "disabled", noncurrentExpiryDays: null };
  }

  async close(): Promise<void> {}
}
