#!/usr/bin/env node
/**
 * The `herald` command's entry (src/commands.ts is the command). The young generation is held
 * small before the code is loaded: ES modules are all parsed and compiled before the first one
 * runs, so this has to happen here, ahead of that import (src/main/start-heap.ts).
 */
import { holdYoungGenerationSmall } from './main/start-heap.js';

// Only for the commands that run roles (and call settleHeap once they run): migrate, config and
// the admin commands keep V8's defaults for their whole, often allocation-heavy, life.
if (['serve', 'api', 'scheduler', 'worker'].includes(process.argv[2] ?? '')) holdYoungGenerationSmall();
await import('./commands.js');
