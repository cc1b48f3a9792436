/**
 * What handlers may call: the domain services the API composition root (src/app.ts) wires.
 * Each handler factory picks only what it uses.
 */
import type { Registry } from 'prom-client';
import type { Readiness } from '../domain/health/readiness.js';
import type { AboutInfo } from './system/get-about.js';

export interface ApiServices {
  readiness: () => Promise<Readiness>;
  registry: Registry;
  metricsToken: string | undefined;
  about: AboutInfo;
}
