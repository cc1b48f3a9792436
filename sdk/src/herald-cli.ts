#!/usr/bin/env node
/** herald-cli's executable, the bin of @herald/sdk (`npx @herald/sdk …`): main() on this process. */
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => { process.stdout.write(text); },
  err: (text) => { process.stderr.write(text); },
  env: process.env,
});
