// Code cells: a sandbox process's cold start (to its first answer) and the cost of one more cell
// in a warm process, per language. Figures in docs/performance.md.
import { createSandbox } from '../src-server/eval/sandbox/sandbox';

const CELLS = 50;
const sandbox = createSandbox();
try {
  for (const [language, run] of [
    ['JavaScript', sandbox.runJavaScript],
    ['Python', sandbox.runPython],
  ] as const) {
    let started = performance.now();
    await run('return 1', {});
    const cold = performance.now() - started;
    started = performance.now();
    for (let i = 0; i < CELLS; i++) await run('return data', { i, text: 'a row of a few words' });
    const warm = (performance.now() - started) / CELLS;
    console.log(`${language}: cold start ${Math.round(cold)} ms, then ${warm.toFixed(1)} ms per cell (${CELLS} cells)`);
  }
} finally {
  await sandbox.close();
}
