// Prompt registry reads at scale: 10,000 templates × 10 versions, every template labelled `prod`
// on one version. Measures `GET /prompt-templates?label=prod` (page + count over 10,000 labelled
// templates) and `POST /prompt-templates/{name}` (pick the version, render, build kwargs) against
// `GET /health` and the authenticated no-op route on the same server, same run, sequential calls.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeDatabase, openDatabase } from '../src-server/store/db';
import { createPromptStore } from '../src-server/store/prompts';
import { fmt, startBenchServer, timeIt } from './support/spawn';

const TEMPLATES = Number(process.env.BENCH_TEMPLATES ?? 10_000);
const VERSIONS = 10;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);
const KEY = 'pl_bench_key';

/** Seeds through the store's own code, in one transaction (the file is closed while no server runs). */
function seed(file: string) {
  const db = openDatabase(file, { synchronous: 'OFF' });
  const store = createPromptStore(db);
  const started = performance.now();
  db.transaction(() => {
    for (let i = 0; i < TEMPLATES; i++) {
      const now = 1_762_000_000_000 + i;
      const templateId = store.insertTemplate({ workspaceId: 1, name: `template-${i}`, folderId: null, tags: [`team-${i % 20}`], now });
      let prodVersion = 0;
      for (let v = 1; v <= VERSIONS; v++) {
        const versionId = store.insertVersion({
          template_id: templateId,
          version_number: v,
          prompt_template: {
            type: 'chat',
            input_variables: ['topic', 'tone'],
            messages: [
              { role: 'system', content: [{ type: 'text', text: `You are assistant ${i}, version ${v}. Answer in a {tone} tone.` }] },
              { role: 'user', content: [{ type: 'text', text: 'Tell me about {topic}. Keep it under 100 words and cite one source.' }] },
            ],
          },
          commit_message: `v${v}`,
          metadata: { model: { provider: 'openai', name: 'gpt-4o-mini', parameters: { temperature: 0.3, max_tokens: 256 } } },
          provider_id: null,
          created_at: now,
        });
        if (v === 7) prodVersion = versionId;
      }
      store.touchTemplate(templateId, { latestVersion: VERSIONS, tags: [`team-${i % 20}`], tagsChanged: false, folderId: null, now });
      store.insertLabel({ workspaceId: 1, templateId, name: 'prod', versionId: prodVersion, now });
    }
  })();
  const seconds = (performance.now() - started) / 1000;
  closeDatabase(db);
  return seconds;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'promptledger-bench-prompts-'));
  try {
    // First start creates the workspace and registers the key; then seed the closed file.
    await (await startBenchServer(dataDir)).stop();
    const seedSeconds = seed(join(dataDir, 'promptledger.db'));
    const server = await startBenchServer(dataDir);
    const headers = { 'X-API-KEY': KEY, 'content-type': 'application/json' };
    const get = async (path: string) => {
      const res = await fetch(server.url + path, { headers });
      if (res.status !== 200) throw new Error(`${path} → ${res.status}`);
      return res.json();
    };
    const post = async (path: string, body: unknown, expected = 200, base = server.url) => {
      const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status !== expected) throw new Error(`${path} → ${res.status}`);
      return res.json();
    };

    const sanity = (await get('/prompt-templates?label=prod')) as { total: number; items: Array<{ version: number }> };
    if (sanity.total !== TEMPLATES || sanity.items[0].version !== 7) throw new Error('seed not visible as expected');

    const health = await timeIt(SAMPLES, () => get('/health'));
    const noop = await timeIt(SAMPLES, () => post('/bench/noop', { x: 1 }, 201, server.noopUrl));
    const list = await timeIt(SAMPLES, (i) => get(`/prompt-templates?label=prod&page=${1 + (i % 50)}`));
    const fetchUse = await timeIt(SAMPLES, (i) =>
      post(`/prompt-templates/template-${(i * 7919) % TEMPLATES}`, { label: 'prod', input_variables: { topic: 'owls', tone: 'dry' } }),
    );
    const fetchDefault = await timeIt(SAMPLES, (i) => post(`/prompt-templates/template-${(i * 7919) % TEMPLATES}`, {}));
    await server.stop();

    console.log(`prompt registry: ${TEMPLATES} templates × ${VERSIONS} versions (seeded in ${seedSeconds.toFixed(1)} s), ${SAMPLES} sequential calls each`);
    const row = (name: string, r: { p50: number; p95: number }) =>
      console.log(`${name.padEnd(46)} p50 ${fmt(r.p50).padStart(9)}  p95 ${fmt(r.p95).padStart(9)}  p95/health ${(r.p95 / health.p95).toFixed(2)}x`);
    row('GET /health (baseline)', health);
    row('POST /bench/noop (auth + body baseline)', noop);
    row('GET /prompt-templates?label=prod', list);
    row('POST /prompt-templates/{name} label=prod +vars', fetchUse);
    row('POST /prompt-templates/{name} (default)', fetchDefault);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
