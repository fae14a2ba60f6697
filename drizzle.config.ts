// drizzle-kit settings: `npm run db:generate` writes SQLite migrations from src/db/schema.ts into drizzle/sqlite.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./drizzle/sqlite",
});
