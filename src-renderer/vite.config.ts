import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The UI build; build/build.mjs runs it for `npm install`, `npm start`, `serve` and the tests. */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../out/renderer', import.meta.url)),
    emptyOutDir: true,
    // The window and the headless server run one recent Chromium; no legacy transforms.
    target: 'es2022',
    // Served from 127.0.0.1, loaded once: one chunk is simpler and fast enough.
    chunkSizeWarningLimit: 1500,
  },
});
