import { ensureDatabase } from "./database-admin";
import { migrate } from "./migrate";

const url = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/lastword";
await ensureDatabase(url);
const applied = await migrate(url);
console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
