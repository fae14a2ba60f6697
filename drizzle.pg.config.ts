// drizzle-kit settings for PostgreSQL: `npm run db:generate:pg` writes migrations from src/db/schema-pg.ts into drizzle/pg.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg.ts",
  out: "./drizzle/pg",
});
