#!/usr/bin/env node
/**
 * The `herald` command's entry (src/commands.ts is the command). The young generation is held
 * small before the code is loaded: ES modules are all parsed and compiled before the first one
 * runs, so this has to happen here, ahead of that import (src/main/start-heap.ts).
 */
import { holdYoungGenerationSmall } from './main/start-heap.js';

holdYoungGenerationSmall();
await import('./commands.js');
