import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@lastword/db/testing";
import { produceBenchmark } from "./bench/produce-bench";

const db = await createTestDatabase("lastword_pb");
const dir = await mkdtemp(join(tmpdir(), "pb-"));
await produceBenchmark({ db, dataDir: dir });
await db.drop();
await rm(dir, { recursive: true, force: true });
