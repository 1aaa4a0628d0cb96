import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from './support/server';
import { allRows, publishDataset, waitForRun } from './support/evaluations';

/**
 * docs/security.md "Code cells": what a cell can reach inside its interpreter is confined by the
 * process it runs in. Each route below reached the host when cells ran in a worker thread of the
 * server (the first cell schedules the reads, which pyodide answers asynchronously; a later cell
 * of the same run collects them).
 */
const ROUTES = `
import sys, gc
box = sys.modules.get('_loot')
if box is not None:
    return {'got': box.got, 'routes': box.routes}
box = type(sys)('_loot')
sys.modules['_loot'] = box
box.got, box.routes = [], []
proxies = {}

def consider(route, value):
    if type(value).__name__.startswith('Js') and not isinstance(value, type):
        proxies.setdefault(route, value)

# 1. Every class's functions' globals (object.__subclasses__).
def walk(c, seen):
    for s in type.__subclasses__(c):
        if s not in seen:
            seen.add(s)
            walk(s, seen)
seen = set()
walk(object, seen)
for c in seen:
    for v in list(vars(c).values()):
        for val in (getattr(v, '__globals__', None) or {}).values():
            consider('subclasses', val)
# 2. Every object the collector tracks.
for o in gc.get_objects():
    if isinstance(o, dict):
        for val in list(o.values()):
            consider('gc', val)
# 3. The frames that called this cell.
f = sys._getframe()
while f is not None:
    for val in list(f.f_globals.values()) + list(f.f_locals.values()):
        consider('frames', val)
    f = f.f_back
# 4. The import system's own table of JavaScript modules.
for c in seen:
    for v in list(vars(c).values()):
        finder = (getattr(v, '__globals__', None) or {}).get('jsfinder')
        if finder is not None:
            for name, module in finder.jsproxies.items():
                consider('jsfinder:' + name, module)

def keep(path):
    return lambda data: box.got.append(path + ' READ ' + bytes(data.to_py()).decode(errors='replace'))
def refused(path):
    return lambda error: box.got.append(path + ' denied: ' + str(error)[:80])

for route, proxy in proxies.items():
    for name in ['_api', 'api']:
        try:
            api = getattr(proxy, name)
            for path in data['paths']:
                api.loadBinaryFile(path).then(keep(path), refused(path))
            box.routes.append(route + '.' + name)
        except Exception:
            pass
    for name in ['process', 'require', 'fetch']:
        try:
            if getattr(proxy, name, None) is not None:
                box.got.append(route + ' has ' + name)
        except Exception:
            pass
return {'scheduled': True}
`;

describe('a code cell cannot reach the host', () => {
  let t: TestServer;
  const secretEnv = 'sk-sandbox-test-not-to-be-seen';
  let before: string | undefined;
  beforeAll(async () => {
    before = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = secretEnv;
    t = await startServer();
  });
  afterAll(async () => {
    await t.close();
    if (before === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = before;
  });

  test("Python: no route through the interpreter's internals reads the data dir, /proc or the environment", async () => {
    const secrets = ['api-key', 'session-secret'].map((f) => readFileSync(join(t.dataDir, f), 'utf8').trim());
    const paths = [join(t.dataDir, 'api-key'), join(t.dataDir, 'session-secret'), join(t.dataDir, 'promptledger.db'), '/proc/self/environ', '/etc/passwd'];
    const { groupId } = await publishDataset(t, [{ paths }]);
    const direct = [
      'import os',
      'out = {"env": dict(os.environ)}',
      'for p in data["paths"]:',
      '    try:',
      '        out[p] = open(p, "rb").read().decode(errors="replace")',
      '    except Exception as e:',
      '        out[p] = type(e).__name__',
      'for m in ["js", "pyodide_js", "pyodide.code"]:',
      '    try:',
      '        __import__(m)',
      '        out[m] = "imported"',
      '    except ImportError as e:',
      '        out[m] = "ImportError"',
      'return out',
    ].join('\n');
    const pipeline = await t.api('/reports', {
      body: {
        dataset_group_id: groupId,
        columns: [
          { column_type: 'CODE_EXECUTION', name: 'routes', configuration: { language: 'PYTHON', code: ROUTES, timeout_ms: 30_000 } },
          // The Python process idles meanwhile, so the reads it scheduled are answered.
          { column_type: 'CODE_EXECUTION', name: 'pause', configuration: { code: 'const t = Date.now(); while (Date.now() - t < 500) {} return 0' } },
          { column_type: 'CODE_EXECUTION', name: 'collect', configuration: { language: 'PYTHON', code: ROUTES, timeout_ms: 30_000 } },
          { column_type: 'CODE_EXECUTION', name: 'direct', configuration: { language: 'PYTHON', code: direct, timeout_ms: 30_000 } },
          { column_type: 'CODE_EXECUTION', name: 'js', configuration: { code: 'return [typeof process, typeof require, typeof fetch, typeof std, typeof os]' } },
        ],
      },
    });
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
    const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'escape' } });
    const reportId = run.body.report_id as number;
    await waitForRun(t, reportId, 120_000);
    const { rows } = await allRows(t, reportId);
    const text = JSON.stringify(rows);
    for (const secret of [...secrets, secretEnv, t.key]) expect(text).not.toContain(secret);
    expect(text).not.toContain('READ');
    expect(text).not.toContain('SQLite format');
    expect(text).not.toContain('root:');

    type Cell = { value: Record<string, unknown> | null; status: string; error?: string };
    const cells = rows.map((r: { cells: Record<string, Cell> }) => r.cells) as Array<Record<string, Cell>>;
    // The routes were really taken: the JavaScript modules were found, the reads attempted and refused.
    expect(cells[0].routes, text.slice(0, 2000)).toMatchObject({ status: 'PASSED', value: { scheduled: true } });
    const last = cells[0].collect.value as { got: string[]; routes: string[] };
    expect(last.routes, text.slice(0, 2000)).toEqual(expect.arrayContaining(['jsfinder:pyodide_js._api']));
    for (const path of paths) expect(last.got).toContain(`${path} denied: Error: Access to this API has been restricted`);
    expect(last.got.filter((g) => / has (process|require|fetch)$/.test(g))).toEqual([]);
    for (const c of cells) {
      expect(c.direct.status).toBe('PASSED');
      expect(c.direct.value).toMatchObject({ env: {}, js: 'ImportError', pyodide_js: 'ImportError', 'pyodide.code': 'ImportError' });
      for (const path of paths) expect(c.direct.value![path]).toBe('FileNotFoundError');
      expect(c.js.value).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
    }
  }, 180_000);

  test("one run's interpreter state is never another's: a patch in one workspace's run is not seen by another workspace's run", async () => {
    const other = await t.api('/api/public/v2/workspaces', { body: { name: 'neighbours' } });
    expect(other.status).toBe(201);
    const patch = [
      'import builtins, json, sys',
      'builtins.LEAK = "from the first workspace"',
      'json.dumps = lambda *a, **k: "patched"',
      'sys.modules["_planted"] = sys',
      'return 1',
    ].join('\n');
    const look = 'import builtins, json, sys\nreturn [getattr(builtins, "LEAK", None), json.dumps(1), "_planted" in sys.modules]';
    const runWith = async (key: string, code: string) => {
      const { groupId } = await publishDataset(t, [{ a: 1 }], { key });
      const pipeline = await t.api('/reports', {
        key, body: { dataset_group_id: groupId, columns: [{ column_type: 'CODE_EXECUTION', name: 'c', configuration: { language: 'PYTHON', code, timeout_ms: 30_000 } }] },
      });
      const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { key, body: { name: 'state' } });
      await waitForRun({ api: (path, init = {}) => t.api(path, { ...init, key }) }, run.body.report_id as number, 120_000);
      const { rows } = await allRows({ api: (path, init = {}) => t.api(path, { ...init, key }) }, run.body.report_id as number);
      return rows[0].cells.c as { value: unknown; error?: string };
    };
    expect(await runWith(t.key, patch)).toMatchObject({ value: 1 });
    expect(await runWith(other.body.api_key as string, look)).toMatchObject({ value: [null, '1', false] });
    // Two interpreter start-ups: about 2 s each, far more on a loaded machine.
  }, 180_000);
});
