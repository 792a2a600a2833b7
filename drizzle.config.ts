import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./db/schema.ts', './db/schema-portal.ts', './db/schema-forms.ts'],
  out: './db/migrations',
});
