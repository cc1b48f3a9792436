/**
 * The web UI's build: web/ to web/dist (index.html and hashed files under assets/), served by the
 * api role (src/http/web-ui.ts). JSX is compiled by Vite's own transformer (no React plugin: the
 * UI is built, not served by a dev server, in `make run` and the tests).
 */
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  oxc: { jsx: { runtime: 'automatic' } },
  resolve: {
    alias: { '@herald/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: which files a page loads (scripts/bench/web-ui.ts measures them).
    manifest: true,
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    rolldownOptions: {
      // Mantine marks its modules 'use client' (for React server components): meaningless here.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
