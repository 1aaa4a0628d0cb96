// `npm pack` makes a package that runs where it is installed: compiled files only, no sources,
// no TypeScript loader. Installing the tarball's dependencies from the registry would need the
// network (and better-sqlite3's native build), so the tarball is unpacked into an empty folder's
// node_modules the way npm lays it out, with its declared `dependencies` linked from this
// checkout's node_modules, and started through `npx promptledger serve` as a user would.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../build/build.mjs';
import { call, tempDir } from './support/server';
import { logBody } from './support/factories';
import { publishDataset } from './support/evaluations';

const ROOT = join(import.meta.dirname, '..');

describe('npm pack', () => {
  let app: string;
  let files: string[];
  let manifest: { dependencies: Record<string, string>; scripts: Record<string, string> };

  beforeAll(async () => {
    await ensureBuilt({ root: ROOT });
    const dest = tempDir('promptledger-pack-');
    // The build above is what `prepare` would run; skipping scripts keeps npm from rebuilding.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = packed[0].files.map((f) => f.path);
    app = join(dest, 'app');
    const modules = join(app, 'node_modules');
    mkdirSync(join(modules, '.bin'), { recursive: true });
    writeFileSync(join(app, 'package.json'), '{"name":"empty","private":true}\n');
    execFileSync('tar', ['-xzf', join(dest, packed[0].filename), '-C', modules]);
    const target = join(modules, 'promptledger');
    execFileSync('mv', [join(modules, 'package'), target]);
    symlinkSync('../promptledger/bin/promptledger.js', join(modules, '.bin', 'promptledger'));
    manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    for (const name of Object.keys(manifest.dependencies)) {
      mkdirSync(join(modules, name, '..'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
    }
  });

  it('holds the compiled entry points and the built UI, not the sources', () => {
    for (const file of ['bin/promptledger.js', 'out/main/serve.js', 'out/main/start.js', 'out/main/index.js', 'out/main/ingest-worker.js', 'out/main/javascript-child.js', 'out/main/python-child.js', 'out/renderer/index.html']) {
      expect(files).toContain(file);
    }
    expect(files.filter((f) => /^(src-|test\/|bench\/|build\/)|\.ts$|\.map$|\.built-at$/.test(f))).toEqual([]);
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
  });

  describe('installed in an empty folder', () => {
    let child: ReturnType<typeof spawn>;
    let out = '';
    afterAll(() => {
      // npx runs the bin in a child of its own: end the whole process group.
      if (child?.pid) process.kill(-child.pid, 'SIGKILL');
    });

    it('runs `npx promptledger serve`: the API, its ingest thread and the UI answer', async () => {
      const dataDir = tempDir();
      child = spawn('npx', ['--offline', 'promptledger', 'serve', '--port', '0', '--data-dir', dataDir], {
        cwd: app,
        // Nothing from this checkout leaks in through the environment.
        env: { PATH: process.env.PATH, HOME: tempDir(), npm_config_update_notifier: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', () => {
          const match = /promptledger listening on (\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
      });
      // No build ran: an installed package has nothing to compile.
      expect(out).not.toMatch(/compiled in|Building the UI/);
      const key = readFileSync(join(dataDir, 'api-key'), 'utf8').trim();
      expect((await call(url, '/log-request', { key, body: logBody() })).status).toBe(201);
      expect((await call(url, '/api/public/v2/requests', { key })).body.items).toHaveLength(1);
      const page = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      // RE2 loads at the first pattern, from the installed dependencies, not from the bundle.
      const api = { api: (path: string, options: { body?: unknown } = {}) => call(url, path, { ...options, key }) };
      const { groupId } = await publishDataset(api, [{ text: 'ab' }]);
      const pipeline = await api.api('/reports', { body: { dataset_group_id: groupId, columns: [{ column_type: 'REGEX', name: 'm', configuration: { source: 'text', regex_pattern: '(a)\\1' } }] } });
      expect(pipeline.status).toBe(422);
      expect(pipeline.body.message).toMatch(/linear-time engine, RE2/);
      // nunjucks likewise loads at the first jinja2 template.
      const jinja = (text: string) => ({ type: 'chat', messages: [{ role: 'user', template_format: 'jinja2', content: [{ type: 'text', text }] }] });
      const published = await api.api('/rest/prompt-templates', { body: { prompt_template: { prompt_name: 'packed' }, prompt_version: { prompt_template: jinja('Hi {{ name | upper }}') } } });
      expect(published.status).toBe(201);
      const rendered = await api.api('/prompt-templates/packed', { body: { input_variables: { name: 'ada' } } });
      expect(rendered.body.prompt_template.messages[0].content[0].text).toBe('Hi ADA');
    });
  });
});
