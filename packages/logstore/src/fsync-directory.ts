import fs from "node:fs";

/**
 * Makes a directory's entries (a file created, renamed or deleted in it) durable. Its own module
 * because segments, checkpoint files, the cleaner and its swap recovery all need it, and checkpoint
 * files sit below segments in the import graph.
 */
export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
