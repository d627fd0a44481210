// Prisma CLI configuration. Only `prisma generate` is used here: the broker applies the SQL
// migrations itself at boot (src/db/migrate.ts), because the CLI's schema engine cannot be
// downloaded on our machines.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
