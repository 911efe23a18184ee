import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// Built by scripts/build-web.ts into web/dist, which the API serves at `/` (api/plugins/web-app.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // RDKit's module and the structure editor are large by nature and loaded on their own.
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
});
