import postgres from 'postgres';

export default async function globalTeardown() {
  const name = process.env.HERALD_TEST_TEMPLATE_DB;
  if (!name) return;
  const u = new URL(process.env.SVC_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  u.pathname = '/postgres';
  const admin = postgres(u.toString(), { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}
