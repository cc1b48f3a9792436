// Jest loads global setup outside its ESM transform, so the TypeScript work runs in a child.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default async function globalSetup() {
  const script = fileURLToPath(new URL('./make-template.ts', import.meta.url));
  const name = execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  process.env.HERALD_TEST_TEMPLATE_DB = name.trim();
}
