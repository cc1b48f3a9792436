/**
 * The internal store's tables (drizzle-orm). Migrations under drizzle/ are generated from this
 * file with `npm run db:generate` and never edited once landed. The tables live in two files by
 * subject: identity and sign-in (./schema-identity.ts), and reporting (./schema-reporting.ts).
 */
export * from './schema-identity.js';
export * from './schema-reporting.js';
export * from './schema-events.js';
export * from './schema-operations.js';
