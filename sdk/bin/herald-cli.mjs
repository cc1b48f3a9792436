#!/usr/bin/env node
// herald-cli: runs sdk/src/cli.ts through tsx (a dependency of the repository).
import { register } from 'tsx/esm/api';

register();
process.env.HERALD_CLI_LAUNCHED = '1';
await import('../src/cli.ts');
