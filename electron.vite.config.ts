import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import { resolve } from 'node:path';
import renderer from './src-renderer/vite.config';

/**
 * For `npx electron-vite dev` while working on the desktop shell (a window that reloads as the
 * renderer changes). The shipped runtime, `npm run build` and `npm install`'s build are compiled by
 * build/build.mjs instead (esbuild: one pass, under a second, no Rollup), with the same entries.
 *
 * `electron-vite build`: the main process (src-main/index.ts with the server it starts, bundled;
 * dependencies stay in node_modules so better-sqlite3 loads its Electron-rebuilt binary) and the
 * renderer (the same Vite config `npm start` and the tests build with). No preload: the window
 * gets nothing but the HTTP API.
 */
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      lib: {
        entry: {
          index: resolve(import.meta.dirname, 'src-main/index.ts'),
          // The server's ingest thread: store/ingest.ts starts ./ingest-worker.js beside the bundle.
          'ingest-worker': resolve(import.meta.dirname, 'src-server/store/ingest-worker.ts'),
          // The code sandbox's processes: eval/sandbox/pool.ts starts ./javascript-child.js and
          // ./python-child.js (plain JavaScript; QuickJS and pyodide stay in node_modules).
          'javascript-child': resolve(import.meta.dirname, 'src-server/eval/sandbox/javascript-child.mjs'),
          'python-child': resolve(import.meta.dirname, 'src-server/eval/sandbox/python-child.mjs'),
        },
        formats: ['es'],
      },
      rollupOptions: { output: { entryFileNames: '[name].js' } },
    },
  },
  renderer: {
    ...renderer,
    root: resolve(import.meta.dirname, 'src-renderer'),
    build: {
      ...renderer.build,
      // electron-vite leaves the renderer unminified by default; the same bundle is served headless.
      minify: true,
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      rollupOptions: { input: resolve(import.meta.dirname, 'src-renderer/index.html') },
    },
  },
});
