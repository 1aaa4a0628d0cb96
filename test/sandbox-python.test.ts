import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox, type SandboxPool } from '../src-server/eval/sandbox/sandbox';
import { startServer, type TestServer } from './support/server';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

describe('Python cells in the sandbox pool', () => {
  let sandbox: SandboxPool;
  const run = (code: string, data: unknown = {}, limits = {}) =>
    sandbox.runPython(code, data, limits).then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.message }),
    );
  beforeAll(() => {
    sandbox = createSandbox({ timeoutMs: 1_000, memoryBytes: 32 * 1024 * 1024 }, { pythonGraceMs: 500 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  test('values: the row in, JSON out, fresh globals per cell', async () => {
    expect(await run('return data["a"] + 1', { a: 41 })).toEqual({ value: 42 });
    expect(await run('return {"xs": [1, 2.5, None, True], "s": data["s"] + "é"}', { s: 'caf' })).toEqual({ value: { xs: [1, 2.5, null, true], s: 'café' } });
    expect(await run('x = 1')).toEqual({ value: null });
    // Strings keep their text: the code is compiled from its AST, not re-indented.
    expect(await run('s = """a\n  b"""\nreturn s')).toEqual({ value: 'a\n  b' });
    expect(await run('global seen\nseen = 1\nreturn 1')).toEqual({ value: 1 });
    expect(await run('return globals().get("seen")')).toEqual({ value: null });
  });

  test('errors: exceptions, non-JSON values, syntax, recursion', async () => {
    expect(await run('raise ValueError("bad row")')).toEqual({ error: 'ValueError: bad row' });
    expect(await run('return data["missing"]', {})).toEqual({ error: "KeyError: 'missing'" });
    expect(await run('return {1, 2}')).toEqual({ error: 'The code returned a value that cannot be turned into JSON.' });
    expect(await run('return float("nan")')).toEqual({ error: 'The code returned a value that cannot be turned into JSON.' });
    expect(await run('return (')).toMatchObject({ error: expect.stringMatching(/^SyntaxError: /) });
    expect(await run('def f(): return f()\nreturn f()')).toEqual({ error: 'Stack overflow: the code recursed too deeply.' });
  });

  test('an infinite loop is interrupted at its time limit and the next cell runs', async () => {
    expect(await run('while True: pass')).toEqual({ error: 'Time limit exceeded: the code ran longer than 1000 ms.' });
    expect(await run('return 2')).toEqual({ value: 2 });
  });

  test('a call that never checks for interrupts ends with its thread, which is replaced', async () => {
    // time.sleep blocks inside the runtime: the cooperative interrupt cannot land, termination does.
    expect(await run('import time\ntime.sleep(60)', {}, { timeoutMs: 300 })).toEqual({ error: 'Time limit exceeded: the code ran longer than 300 ms.' });
    expect(await run('return data["n"] * 2', { n: 21 })).toEqual({ value: 42 });
  });

  test('huge allocations end as ERROR cells and leave the sandbox usable', async () => {
    expect(await run("x = 'a' * (10**10)")).toMatchObject({ error: expect.stringMatching(/OverflowError|MemoryError|Memory limit/) });
    expect(await run('x = [0] * 10**9')).toEqual({ error: 'Memory limit exceeded: the code used more than 32 MB.' });
    expect(await run("a = []\nwhile True: a.append('x' * 10000)")).toEqual({ error: 'Memory limit exceeded: the code used more than 32 MB.' });
    // 24 MB fits under the 32 MB limit once the previous cell's garbage is freed.
    expect(await run('return len(bytearray(24 * 1024 * 1024))')).toEqual({ value: 24 * 1024 * 1024 });
  });

  test('no host access: no JavaScript bridge, no host files, no network, no processes', async () => {
    expect(await run('import js\nreturn str(js.process)')).toEqual({ error: "ImportError: No module named 'js' (not available in the sandbox)" });
    expect(await run('import pyodide_js\nreturn 1')).toMatchObject({ error: expect.stringMatching(/^ImportError/) });
    expect(await run('from pyodide.code import run_js\nreturn run_js("process.env")')).toMatchObject({ error: expect.stringMatching(/^ImportError/) });
    expect(await run('from pyodide.ffi import to_js\nreturn 1')).toMatchObject({ error: expect.stringMatching(/^ImportError/) });
    const listing = await run('import os\nreturn os.listdir("/")');
    expect(listing).toHaveProperty('value');
    expect((listing as { value: string[] }).value).not.toContain('work');
    expect((listing as { value: string[] }).value).not.toContain('etc');
    expect(await run('return open("/etc/passwd").read()')).toMatchObject({ error: expect.stringMatching(/^FileNotFoundError/) });
    expect(await run('import os\nreturn os.environ.get("PATH", "") + os.environ.get("HOME", "")')).not.toMatchObject({ value: expect.stringContaining('/usr/bin') });
    // Importing urllib (http.client, email…) from pyodide's stdlib takes ~1 s on a quiet machine and
    // more under load; the pool's 1 s limit is for the loops above, not for this import.
    const slowImport = { timeoutMs: 10_000 };
    expect(await run('import urllib.request\nreturn urllib.request.urlopen("http://127.0.0.1:1/").read().decode()', {}, slowImport)).toMatchObject({ error: expect.stringMatching(/^URLError/) });
    expect(await run('import subprocess\nreturn subprocess.run(["ls"]).returncode', {}, slowImport)).toMatchObject({ error: expect.stringMatching(/^OSError/) });
  });

  test('a JavaScript object reached through the interpreter internals still cannot reach the host', async () => {
    // The classic escape: walk every class to a function whose globals hold a JavaScript proxy.
    const find = [
      'def walk(c, seen):',
      '    for s in type.__subclasses__(c):',
      '        if s not in seen:',
      '            seen.add(s)',
      '            walk(s, seen)',
      'seen = set()',
      'walk(object, seen)',
      'found = {}',
      'for c in seen:',
      '    for v in list(vars(c).values()):',
      '        for k, val in (getattr(v, "__globals__", None) or {}).items():',
      '            if type(val).__name__.startswith("Js") and not isinstance(val, type):',
      '                found[k] = val',
      'mods = found["jsfinder"].jsproxies',
      'g, p = mods["js"], mods["pyodide_js"]',
    ].join('\n');
    // Walking every class takes a few hundred ms quietly and over a second under load; the limit
    // here is not what is tested.
    const slowWalk = { timeoutMs: 10_000 };
    expect(await run(`${find}\nreturn [str(getattr(g, k, None)) for k in ["process", "fetch", "eval", "require", "BroadcastChannel"]]`, {}, slowWalk)).toEqual({
      value: ['None', 'None', 'None', 'None', 'None'],
    });
    expect(await run(`${find}\nreturn str(g.Function("return process.pid")())`, {}, slowWalk)).toEqual({ error: 'JsException: Error: Not available in the sandbox.' });
    expect(await run(`${find}\nreturn str(g.Object.constructor("return process.pid")())`, {}, slowWalk)).toEqual({ error: 'JsException: Error: Not available in the sandbox.' });
    expect(await run(`${find}\nreturn str((lambda: 0).__class__)\n`, {}, slowWalk)).toHaveProperty('value');
    expect(await run(`${find}\np.mountNodeFS("/mnt", "/")\nreturn 1`, {}, slowWalk)).toEqual({ error: 'JsException: Error: Not available in the sandbox.' });
    expect(await run(`${find}\nreturn str(p.FS.filesystems.object_keys())`, {}, slowWalk)).toEqual({ value: 'MEMFS' });
    expect(await run(`${find}\np.FS.mount(p.FS.filesystems.MEMFS.__class__, {}, "/mnt")\nreturn 1`, {}, slowWalk)).toEqual({ error: 'JsException: Error: Not available in the sandbox.' });
    expect(await run(`${find}\nreturn str(p._module.NODEFS)`, {}, slowWalk)).toEqual({ error: 'AttributeError: NODEFS' });
    expect(await run('return 7')).toEqual({ value: 7 });
  });
});

describe('a PYTHON column on a running server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t.close();
  });

  test('runs over the dataset; values and errors in the report rows', async () => {
    const { groupId } = await publishDataset(t, [{ q: 'ab', n: 1 }, { q: 'xyz', n: 2 }, { q: '', n: 0 }]);
    const pipeline = await t.api('/reports', {
      body: {
        dataset_group_id: groupId,
        columns: [
          { column_type: 'CODE_EXECUTION', name: 'py', configuration: { language: 'PYTHON', code: 'return {"len": len(data["q"]), "ratio": 10 // data["n"]}' } },
        ],
      },
    });
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
    const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'python' } });
    expect(run.status).toBe(201);
    const done = await waitForRun(t, run.body.report_id as number, 60_000);
    expect(done.stats.status_counts).toMatchObject({ COMPLETED: 2, FAILED: 1 });
    const { rows } = await allRows(t, run.body.report_id as number);
    expect(rows.map((r: { cells: Record<string, { value: unknown; status: string; error?: string }> }) => r.cells.py)).toMatchObject([
      { value: { len: 2, ratio: 10 }, status: 'PASSED' },
      { value: { len: 3, ratio: 5 }, status: 'PASSED' },
      { value: null, status: 'ERROR', error: 'ZeroDivisionError: integer division or modulo by zero' },
    ]);
  });
});
