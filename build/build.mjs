// The build: the server, the desktop shell and every worker compiled to plain JavaScript in
// out/main/ (esbuild), and the UI in out/renderer/ (Vite). `npm install` runs it (the `prepare`
// script); bin/promptledger.js calls ensureBuilt() in a checkout so `npm start` rebuilds only what
// changed; the tests build the UI through src-main/renderer-build.ts, which re-exports this file.
// Plain JavaScript so that it runs before anything is compiled and without a TypeScript loader.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What runs compiled, one bundle each in out/main/ (code they share goes to chunks beside them).
 * Workers must sit beside the code that starts them: src-server/threads/start-worker.ts loads
 * `./<name>.js` next to the calling module, so a new worker or child-process entry is one line here.
 */
export const RUNTIME_ENTRIES = {
  // `promptledger serve` and `promptledger start` (bin/promptledger.js imports these).
  serve: 'src-server/main.ts',
  start: 'src-main/start.ts',
  // Checked by bin before the server's code loads, so a bad flag fails at once.
  config: 'src-server/config.ts',
  // Electron's main process (package.json `main`).
  index: 'src-main/index.ts',
  // Worker threads.
  'ingest-worker': 'src-server/store/ingest-worker.ts',
};

/**
 * The code sandbox's child processes (eval/sandbox/pool.ts starts `./<name>.js` beside its own
 * compiled chunk). They are copied as written, not bundled: Node's permission model lets each
 * read only its own entry file and its interpreter's package, so a shared chunk beside it would be
 * unreadable to it. They import nothing at load time but Node's built-ins.
 */
export const CHILD_ENTRIES = {
  'javascript-child': 'src-server/eval/sandbox/javascript-child.mjs',
  'python-child': 'src-server/eval/sandbox/python-child.mjs',
};

/** Left in node_modules (see the build below); everything else the runtime imports is bundled. */
const EXTERNAL = ['electron', 'quickjs-emscripten', '@jitl/*', 'pyodide', '@opentelemetry/*', 'protobufjs', 'protobufjs/*'];

/**
 * Content types the server can send or serve, by extension; every type with a default charset is
 * kept as well. Koa and type-is load the whole mime-db (2,500 types, two copies of ~200 KB: a
 * fifth of the bundle, parsed and indexed at every start) to answer for these few.
 */
const MIME_EXTENSIONS = new Set('json html htm txt text bin js mjs cjs css map svg png jpg jpeg gif ico webp avif woff woff2 ttf otf wasm csv xml pdf zip gz md yaml yml'.split(' '));

/** esbuild plugin: each bundled copy of mime-db becomes the types in MIME_EXTENSIONS. */
const mimeSubset = {
  name: 'mime-db-subset',
  setup(build) {
    build.onLoad({ filter: /[\\/]mime-db[\\/]db\.json$/ }, ({ path }) => {
      const db = JSON.parse(readFileSync(path, 'utf8'));
      const kept = Object.entries(db).filter(([, entry]) => entry.charset || (entry.extensions ?? []).some((ext) => MIME_EXTENSIONS.has(ext)));
      return { contents: JSON.stringify(Object.fromEntries(kept)), loader: 'json' };
    });
  },
};

/**
 * esbuild plugin: zod's `locales` namespace keeps only English, the language of every error the
 * server writes. All 48 translations were 258 KB of the 444 KB zod put in the bundle.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};

/** Sources whose change makes out/main stale. */
const RUNTIME_SOURCES = ['src-server', 'src-main', 'package.json', 'build/build.mjs'];
const STAMP = '.built-at';
const LOCK_STALE_MS = 5 * 60_000;

/** Newest modification time of a file, or of anything under a folder. */
function newestMtime(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function isStale(root, outDir, sources, marker) {
  const stamp = join(outDir, STAMP);
  if (!existsSync(stamp) || !existsSync(join(outDir, marker))) return true;
  const stampTime = statSync(stamp).mtimeMs;
  return sources.some((source) => newestMtime(join(root, source)) > stampTime);
}

export const runtimeIsStale = (root = ROOT, outDir = join(root, 'out', 'main')) => isStale(root, outDir, RUNTIME_SOURCES, 'serve.js');
export const rendererIsStale = (root = ROOT, outDir = join(root, 'out', 'renderer')) => isStale(root, outDir, ['src-renderer'], 'index.html');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Builds `outDir` with `build(tmp)` unless `stale()` says it is current. Test files and servers
 * start in parallel processes, so one builds under a lock directory (mkdir is atomic) while the
 * others wait, and the result appears by rename, never half-written.
 */
async function buildUnderLock(outDir, stale, build) {
  if (!stale()) return false;
  const lock = `${outDir}.lock`;
  mkdirSync(dirname(outDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(100);
    }
  }
  try {
    if (!stale()) return false;
    const tmp = `${outDir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    try {
      await build(tmp);
    } catch (error) {
      rmSync(tmp, { recursive: true, force: true });
      throw error;
    }
    writeFileSync(join(tmp, STAMP), new Date().toISOString());
    rmSync(outDir, { recursive: true, force: true });
    renameSync(tmp, outDir);
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Compiles RUNTIME_ENTRIES into out/main/ when missing or older than their sources. */
export async function ensureRuntimeBuilt({ root = ROOT, outDir = join(root, 'out', 'main'), log } = {}) {
  await buildUnderLock(outDir, () => runtimeIsStale(root, outDir), async (tmp) => {
    const started = Date.now();
    // esbuild arrives with vite and tsx; compiling ~150 files takes well under a second.
    const { build } = await import('esbuild');
    await build({
      absWorkingDir: root,
      entryPoints: RUNTIME_ENTRIES,
      outdir: tmp,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      // Pure-JavaScript dependencies are bundled: resolving and reading their hundreds of files
      // (zod, koa and theirs) was most of the start-up time. better-sqlite3's JavaScript is
      // bundled too; its native addon stays in node_modules (rebuilt for Electron when packaged)
      // and store/sqlite.ts hands its path over. Packages that load files relative to themselves
      // stay there: QuickJS and pyodide (WebAssembly), protobufjs-based OpenTelemetry.
      external: EXTERNAL,
      plugins: [mimeSubset, zodEnglishOnly],
      // Bundled CommonJS code calls require() for Node's built-ins; give the ES modules one.
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      logLevel: 'warning',
      legalComments: 'none',
      // Smaller source is less to parse and to keep in memory (measured: ~2 MiB of idle RSS);
      // the linked source maps turn stack traces back into src/ names under --enable-source-maps.
      minify: true,
      sourcemap: 'linked',
    });
    for (const [name, source] of Object.entries(CHILD_ENTRIES)) copyFileSync(join(root, source), join(tmp, `${name}.js`));
    log?.(`Server compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
  return outDir;
}

/** Builds the UI into out/renderer/ when it is missing or older than its sources. */
export async function ensureRendererBuilt({ root = ROOT, outDir = join(root, 'out', 'renderer'), log } = {}) {
  await buildUnderLock(outDir, () => rendererIsStale(root, outDir), (tmp) => {
    log?.('Building the UI…');
    const started = Date.now();
    const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    const result = spawnSync(
      process.execPath,
      [vite, 'build', '--config', join(root, 'src-renderer', 'vite.config.ts'), '--outDir', tmp, '--emptyOutDir', '--logLevel', 'warn'],
      // Test runners set NODE_ENV=test, which would make Vite bundle React's development build
      // (measured: ~4× slower renders); the UI is always built for production.
      { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } },
    );
    if (result.status !== 0) throw new Error(`Building the UI failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`);
    log?.(`UI built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
  return outDir;
}

/** Both builds, each only when stale; `ui: false` leaves the UI alone (`serve --no-ui`). */
export async function ensureBuilt({ root = ROOT, ui = true, log } = {}) {
  await ensureRuntimeBuilt({ root, log });
  if (ui) await ensureRendererBuilt({ root, log });
}

// `node build/build.mjs` (npm's `prepare` and `npm run build`): build what is stale;
// `--force` rebuilds both.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--force')) {
    for (const dir of ['main', 'renderer']) rmSync(join(ROOT, 'out', dir, STAMP), { force: true });
  }
  await ensureBuilt({ log: (m) => console.error(m) }).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
