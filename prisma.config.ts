import { defineConfig } from "prisma/config";
import { readDbEnv } from "./packages/db/src/env";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: readDbEnv().DATABASE_URL },
});
