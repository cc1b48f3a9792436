import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding Herald's package.json, whether running from src/ (tsx, jest) or dist/. */
function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'herald') {
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the herald package root');
    dir = parent;
  }
}

export const packageRoot = findPackageRoot();
export const packageVersion = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
export const migrationsFolder = path.join(packageRoot, 'drizzle');
export const openapiPath = path.join(packageRoot, 'openapi.yaml');
/** The SDK as `npm pack` made it (`make build`, `npm run sdk:pack`), served at /sdk/herald-sdk.tgz. */
export const sdkPackagePath = path.join(packageRoot, 'dist', 'sdk', 'herald-sdk.tgz');
