// Evaluation against promptfoo on the same work (issue 15, item 4): 1,000 CSV rows, one LLM call
// ("Repeat after me: {text}") and a contains check per row, a local OpenAI-compatible mock that
// answers at once, concurrency 10. Ours: timed from `POST /reports/{id}/run` to the run's `done`
// event (GET …/reports/{id}/events), with the server's RSS sampled every 5 ms through the run. promptfoo: `promptfoo eval -j 10`
// over the same CSV and mock, timed as a process (telemetry and update checks off, its cache off).
// Then 1,000 rows at 50 ms latency and concurrency 50 against rows × latency / concurrency.
//
// promptfoo is found in PROMPTFOO_DIR or /work/promptfoo (install it outside the repo:
// `npm install --ignore-scripts promptfoo@0.121.20`); without it only our figures are printed.
// BENCH_ROUNDS (default 3) repeats each measurement; the median is reported. BENCH_NODE_ARGS
// (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to the server's node; BENCH_SKIP_PROMPTFOO=1;
// BENCH_ECHO=1 shows the server's stdout (say, with BENCH_NODE_ARGS=--trace-gc).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastUserText, startMockLlm } from '../test/support/mock-llm';
import { call } from '../test/support/server';
import { BENCH_KEY as KEY } from './support/seed';
import { startShippedServer } from './support/spawn';

const ROWS = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_SLOW_ROUNDS (default 1): how many times the 50 ms, c = 50 run is measured (each line printed). */
const SLOW_ROUNDS = Number(process.env.BENCH_SLOW_ROUNDS ?? 1);
const PROMPTFOO_DIR = process.env.PROMPTFOO_DIR ?? '/work/promptfoo';
const promptfooBin = join(PROMPTFOO_DIR, 'node_modules', 'promptfoo', 'dist', 'src', 'entrypoint.js');

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** CPU seconds (user + system, every thread) the process has used: steadier than wall time on a loaded machine. */
const cpuSeconds = (pid: number, thread?: number) => {
  const fields = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const statusMiB = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

function csv(): string {
  const lines = ['text'];
  for (let i = 0; i < ROWS; i++) lines.push(`the quick brown fox ${i} jumps over the lazy dog`);
  return `${lines.join('\n')}\n`;
}

async function main() {
  const mock = await startMockLlm();
  const work = mkdtempSync(join(tmpdir(), 'promptledger-bench-promptfoo-'));
  const csvFile = join(work, 'rows.csv');
  writeFileSync(csvFile, csv());
  console.log(`load average at start: ${load()} (2 cores)`);

  const server = await startShippedServer(join(work, 'data'), {
    OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-bench', PROMPTLEDGER_EVAL_CONCURRENCY: '50',
  });
  const rss = () => `${statusMiB(server.child.pid!, 'VmRSS').toFixed(0)} MiB (anonymous ${statusMiB(server.child.pid!, 'RssAnon').toFixed(0)})`;
  const stages = [`idle ${rss()}`];
  const api = (path: string, body?: unknown) => call(server.url, path, { key: KEY, body });
  const group = await api('/api/public/v2/dataset-groups', { name: 'promptfoo comparison' });
  const version = await api('/api/public/v2/dataset-versions/from-file', {
    dataset_group_id: group.body.dataset_group.id, file_name: 'rows.csv', file_content_base64: readFileSync(csvFile).toString('base64'),
  });
  if (version.status !== 201) throw new Error(JSON.stringify(version.body));
  const pipeline = await api('/reports', {
    dataset_group_id: group.body.dataset_group.id,
    columns: [
      {
        column_type: 'PROMPT_TEMPLATE', name: 'answer',
        configuration: {
          inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Repeat after me: {text}' }] }] } },
          prompt_template_variable_mappings: { text: 'text' }, engine: { provider: 'openai', model: 'gpt-4o-mini' },
        },
      },
      { column_type: 'CONTAINS', name: 'repeated', configuration: { source: 'answer', value_source: 'text' } },
    ],
  });
  if (pipeline.status !== 201) throw new Error(JSON.stringify(pipeline.body));
  stages.push(`after the dataset import ${rss()}`);

  async function ours(concurrency: number) {
    const pid = server.child.pid!;
    let peak = statusMiB(pid, 'VmRSS');
    const before = peak;
    // RSS is sampled from here; the end of the run comes as the report's `done` event (polling the
    // report every 10 ms was ~4 % of the server's busy time in its profile, work promptfoo's side never does).
    const cpu0 = cpuSeconds(pid);
    // The main thread's own share (its thread id is the process id): the event loop that runs the rows.
    const main0 = cpuSeconds(pid, pid);
    const t0 = performance.now();
    // The same 5 ms ticks see when the mock got the run's first call and when the last one left it.
    const calls0 = mock.calls.length;
    // Each call's arrival at the mock and its answer (the reply is made after the latency), for the
    // wall time's parts: first call, the calls' own time at the mock, the mean number in flight, the tail.
    const arrivals: number[] = [];
    const answers: number[] = [];
    mock.calls.push = (...items) => {
      for (let i = 0; i < items.length; i++) arrivals.push(performance.now() - t0);
      return Array.prototype.push.apply(mock.calls, items);
    };
    mock.setReply((call) => {
      answers.push(performance.now() - t0);
      return `echo: ${lastUserText(call.body)}`;
    });
    let firstCall = NaN;
    let lastAnswer = NaN;
    const sampler = setInterval(() => {
      peak = Math.max(peak, statusMiB(pid, 'VmRSS'));
      if (Number.isNaN(firstCall) && mock.calls.length > calls0) firstCall = performance.now() - t0;
      if (mock.calls.length - calls0 >= ROWS && mock.inFlight === 0 && Number.isNaN(lastAnswer)) lastAnswer = performance.now() - t0;
    }, 5);

    const started = await api(`/reports/${pipeline.body.report_id}/run`, { name: `c${concurrency}`, concurrency });
    if (started.status !== 201 && started.status !== 200) throw new Error(JSON.stringify(started.body));
    const events = await fetch(`${server.url}/api/public/v2/reports/${started.body.report_id}/events`, { headers: { 'X-API-KEY': KEY } });
    const stream = await events.text();
    const ms = performance.now() - t0;
    const cpuMs = (cpuSeconds(pid) - cpu0) * 1000;
    const mainCpuMs = (cpuSeconds(pid, pid) - main0) * 1000;
    clearInterval(sampler);
    Reflect.deleteProperty(mock.calls, 'push');
    peak = Math.max(peak, statusMiB(pid, 'VmRSS'));
    if (!/event: done\ndata: .*"status":"COMPLETED"/.test(stream)) throw new Error(`the run did not complete:\n${stream.slice(-500)}`);
    const report = await api(`/reports/${started.body.report_id}`);
    if (report.body.status !== 'COMPLETED') throw new Error(JSON.stringify(report.body));
    if (report.body.report.score !== 100) throw new Error(`score ${report.body.report.score}, expected 100`);
    const span = answers[answers.length - 1] - arrivals[0];
    const atMock = answers.reduce((sum, a, i) => sum + a, 0) - arrivals.reduce((sum, a) => sum + a, 0);
    const phases = {
      first: arrivals[0], last: answers[answers.length - 1], span, tailExact: ms - answers[answers.length - 1],
      meanAtMock: atMock / answers.length, meanInFlight: atMock / span,
    };
    if (process.env.BENCH_PHASES) writeFileSync(`${process.env.BENCH_PHASES}-c${concurrency}-${Date.now()}.json`, JSON.stringify({ arrivals, answers, ms }));
    return { ms, cpuMs, mainCpuMs, before, peak, anon: statusMiB(pid, 'RssAnon'), firstCall, tail: ms - lastAnswer, phases };
  }

  mock.setLatency(0);
  await ours(10); // warm-up: JIT, page cache
  stages.push(`after the warm-up run ${rss()}`);
  console.log(`server RSS: ${stages.join('; ')}`);
  const oursRuns = [];
  for (let i = 0; i < ROUNDS; i++) oursRuns.push(await ours(10));
  const oursMs = median(oursRuns.map((r) => r.ms));
  const oursCpu = median(oursRuns.map((r) => r.cpuMs));
  console.log(`ours: 1,000 rows, 0 ms mock, concurrency 10: wall ${oursRuns.map((r) => r.ms.toFixed(0)).join(' / ')} ms (median ${oursMs.toFixed(0)}), ` +
    `server CPU ${oursRuns.map((r) => r.cpuMs.toFixed(0)).join(' / ')} ms (median ${oursCpu.toFixed(0)}; main thread ${oursRuns.map((r) => r.mainCpuMs.toFixed(0)).join(' / ')}); ` +
    `server RSS before ${oursRuns.map((r) => r.before.toFixed(0)).join('/')} MiB, peak during the run ${oursRuns.map((r) => r.peak.toFixed(0)).join('/')} MiB ` +
    `(anonymous at the end ${oursRuns.map((r) => r.anon.toFixed(0)).join('/')} MiB); load ${load()}`);

  mock.setLatency(50);
  const ideal = (ROWS * 50) / 50;
  for (let i = 0; i < SLOW_ROUNDS; i++) {
    const slow = await ours(50);
    console.log(`ours: 1,000 rows, 50 ms mock, concurrency 50: ${slow.ms.toFixed(0)} ms; ideal ${ideal} ms; ratio ${(slow.ms / ideal).toFixed(3)}× (target ≤ 1.15×); ` +
      `server CPU ${slow.cpuMs.toFixed(0)} ms (main thread ${slow.mainCpuMs.toFixed(0)}); first call at ${slow.phases.first.toFixed(1)} ms, ` +
      `a call's time at the mock ${slow.phases.meanAtMock.toFixed(1)} ms, ${slow.phases.meanInFlight.toFixed(1)} in flight on average over ${slow.phases.span.toFixed(0)} ms, ` +
      `done ${slow.phases.tailExact.toFixed(1)} ms after the last answer; load ${load()}`);
  }
  mock.setLatency(0);

  await server.stop();

  if (process.env.BENCH_SKIP_PROMPTFOO === '1') {
    console.log('promptfoo skipped (BENCH_SKIP_PROMPTFOO=1).');
  } else if (!existsSync(promptfooBin)) {
    console.log(`promptfoo is ABSENT (no ${promptfooBin}): set PROMPTFOO_DIR or install promptfoo@0.121.20 in /work/promptfoo; no ratio printed.`);
  } else {
    const config = join(work, 'promptfooconfig.yaml');
    writeFileSync(config, [
      'prompts:',
      "  - 'Repeat after me: {{text}}'",
      'providers:',
      '  - id: openai:chat:gpt-4o-mini',
      '    config:',
      `      apiBaseUrl: ${mock.baseUrl}`,
      '      apiKey: sk-bench',
      `tests: file://${csvFile}`,
      'defaultTest:',
      '  assert:',
      '    - type: contains',
      "      value: '{{text}}'",
      '',
    ].join('\n'));
    const promptfoo = () => new Promise<{ ms: number; cpuMs: number }>((resolve, reject) => {
      const t0 = performance.now();
      // /usr/bin/time reports the CPU of promptfoo and every process it starts.
      const child = spawn('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, promptfooBin, 'eval', '-c', config, '-j', '10', '--no-cache', '--no-table', '--no-progress-bar'], {
        cwd: work,
        env: {
          ...process.env, PROMPTFOO_DISABLE_TELEMETRY: '1', PROMPTFOO_DISABLE_UPDATE: '1', PROMPTFOO_CONFIG_DIR: join(work, 'promptfoo-home'),
          PROMPTFOO_DISABLE_REMOTE_GENERATION: '1', PROMPTFOO_DISABLE_SHARING: '1', OPENAI_API_KEY: 'sk-bench', NO_PROXY: '127.0.0.1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      child.once('exit', () => {
        const ms = performance.now() - t0;
        // promptfoo exits 100 when an assertion fails; every row must pass, as ours must.
        const cpu = /CPU (\d+\.\d+) (\d+\.\d+)/.exec(out);
        if (!/Successes?:\s*1,?000|1,?000 passed|Passed?:?\s*1,?000/i.test(out)) reject(new Error(`promptfoo did not pass 1,000 rows:\n${out.slice(-2000)}`));
        else resolve({ ms, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN });
      });
    });
    await promptfoo(); // warm-up: module cache, its database created
    const theirs = [];
    for (let i = 0; i < ROUNDS; i++) theirs.push(await promptfoo());
    const theirsMs = median(theirs.map((r) => r.ms));
    const theirsCpu = median(theirs.map((r) => r.cpuMs));
    console.log(`promptfoo 0.121.20 eval -j 10, same CSV and mock: wall ${theirs.map((r) => r.ms.toFixed(0)).join(' / ')} ms (median ${theirsMs.toFixed(0)}), ` +
      `CPU ${theirs.map((r) => r.cpuMs.toFixed(0)).join(' / ')} ms (median ${theirsCpu.toFixed(0)}); load ${load()}`);
    console.log(`ratio promptfoo / ours: wall ${(theirsMs / oursMs).toFixed(1)}× (target ≥ 10×), CPU ${(theirsCpu / oursCpu).toFixed(1)}×`);
  }
  console.log(`load average at end: ${load()}`);
  await mock.close();
  rmSync(work, { recursive: true, force: true });
}

await main();
