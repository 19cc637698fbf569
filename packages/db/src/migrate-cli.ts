import { ensureDatabase } from "./database-admin";
import { readDbEnv } from "./env";
import { migrate } from "./migrate";

const url = readDbEnv().DATABASE_URL;
await ensureDatabase(url);
const applied = await migrate(url);
console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
