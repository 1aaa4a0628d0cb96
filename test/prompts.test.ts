import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

const chatTemplate = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'chat',
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
    { role: 'user', content: [{ type: 'text', text }], ...extra },
  ],
  input_variables: [],
});

const model = { provider: 'openai', name: 'gpt-4o-mini', parameters: { temperature: 0.2 } };

function publishBody(name: string, text = 'Hello {name}', extra: { labels?: string[]; version?: Record<string, unknown>; template?: Record<string, unknown> } = {}) {
  return {
    prompt_template: { prompt_name: name, ...(extra.template ?? {}) },
    prompt_version: { prompt_template: chatTemplate(text), metadata: { model }, ...(extra.version ?? {}) },
    ...(extra.labels ? { release_labels: extra.labels } : {}),
  };
}

describe('prompt registry: publish', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t?.close());

  it('creates the template on first publish and numbers versions 1, 2, 3', async () => {
    const first = await t.api('/rest/prompt-templates', { body: publishBody('greeter', 'v1 {name}', { version: { commit_message: 'first' } }) });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      id: expect.any(Number), prompt_name: 'greeter', prompt_version_id: expect.any(Number), version_number: 1,
      tags: [], release_labels: [], commit_message: 'first', metadata: { model },
    });
    expect(first.body.prompt_template.messages[1].content[0].text).toBe('v1 {name}');
    const second = await t.api('/rest/prompt-templates', { body: publishBody('greeter', 'v2 {name}') });
    const third = await t.api('/rest/prompt-templates', { body: publishBody('greeter', 'v3 {name}') });
    expect([second.body.version_number, third.body.version_number]).toEqual([2, 3]);
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.commit_message).toBeNull();
    // Versions are immutable: version 1 still has its own text.
    const v1 = await t.api('/prompt-templates/greeter?version=1');
    expect(v1.status).toBe(200);
    expect(v1.body.prompt_template.messages[1].content[0].text).toBe('v1 {name}');
    expect(v1.body.commit_message).toBe('first');
  });

  it('accepts completion templates and keeps custom metadata keys', async () => {
    const res = await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'summarize', tags: ['a', 'b'] },
        prompt_version: {
          prompt_template: { type: 'completion', content: [{ type: 'text', text: 'Summarize: {doc}' }], input_variables: ['doc'] },
          metadata: { model: { provider: 'openai', name: 'gpt-3.5-turbo-instruct', parameters: { max_tokens: 50 } }, team: 'search', owner: 'ann' },
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.tags).toEqual(['a', 'b']);
    const raw = await t.api('/prompt-templates/summarize');
    expect(raw.body.metadata).toMatchObject({ team: 'search', owner: 'ann' });
    expect(raw.body.prompt_template).toMatchObject({ type: 'completion', template_format: 'f-string' });
  });

  it('rejects bad input with 422 naming the field, and writes nothing', async () => {
    const cases: Array<[unknown, Array<string | number>]> = [
      [publishBody('x'.repeat(513)), ['body', 'prompt_template', 'prompt_name']],
      [publishBody(''), ['body', 'prompt_template', 'prompt_name']],
      [publishBody('a/b'), ['body', 'prompt_template', 'prompt_name']],
      [publishBody('12345'), ['body', 'prompt_template', 'prompt_name']],
      [publishBody('ok', 'hi', { version: { commit_message: 'c'.repeat(73) } }), ['body', 'prompt_version', 'commit_message']],
      [publishBody('ok', 'hi', { version: { prompt_template: { type: 'nope' } } }), ['body', 'prompt_version', 'prompt_template', 'type']],
      [publishBody('ok', 'hi', { labels: [''] }), ['body', 'release_labels', 0]],
      [publishBody('ok', 'hi', { template: { tags: ['t'.repeat(513)] } }), ['body', 'prompt_template', 'tags', 0]],
      [publishBody('ok', 'hi', { template: { folder_id: 0 } }), ['body', 'prompt_template', 'folder_id']],
      [publishBody('ok', 'hi', { version: { metadata: { ['k'.repeat(1025)]: 'v' } } }), ['body', 'prompt_version', 'metadata', 'k'.repeat(1025)]],
      [{ prompt_template: { prompt_name: 'ok' } }, ['body', 'prompt_version']],
    ];
    for (const [body, loc] of cases) {
      const res = await t.api('/rest/prompt-templates', { body });
      expect(res.status, JSON.stringify(loc)).toBe(422);
      expect(res.body.success).toBe(false);
      expect(res.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    const jinja = await t.api('/rest/prompt-templates', {
      body: publishBody('ok', 'x', { version: { prompt_template: { type: 'completion', content: [{ type: 'text', text: '{{ oops' }], template_format: 'jinja2' } } }),
    });
    expect(jinja.status).toBe(422);
    expect(jinja.body.detail[0].loc).toEqual(['body', 'prompt_version', 'prompt_template', 'content', 0, 'text']);
    // A reference to an id that is not in the workspace is a 404, as everywhere in the API.
    for (const override of [{ template: { folder_id: 999 } }, { version: { provider_id: 999 } }]) {
      const res = await t.api('/rest/prompt-templates', { body: publishBody('ok', 'hi', override) });
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/^(Folder|Provider) not found\.$/);
    }
    expect((await t.api('/prompt-templates/ok')).status).toBe(404);
  });

  it('accepts names at the bounds (1 and 512 chars) and commit messages of 72', async () => {
    const long = 'n'.repeat(512);
    expect((await t.api('/rest/prompt-templates', { body: publishBody('n') })).status).toBe(201);
    const res = await t.api('/rest/prompt-templates', { body: publishBody(long, 'hi', { version: { commit_message: 'c'.repeat(72) } }) });
    expect(res.status).toBe(201);
    expect((await t.api(`/prompt-templates/${long}`)).body.prompt_name).toBe(long);
  });

  it('keeps a template in the folder it was published to', async () => {
    // Folders belong to another part of the API; a real row in the real file stands in for one.
    const folderId = Number(
      t.server.db.prepare('INSERT INTO folders (workspace_id, name, created_at) VALUES (1, ?, 0)').run('Prompts').lastInsertRowid,
    );
    const res = await t.api('/rest/prompt-templates', { body: publishBody('foldered', 'x', { template: { folder_id: folderId } }) });
    expect(res.status).toBe(201);
    expect(res.body.folder_id).toBe(folderId);
    const list = await t.api('/prompt-templates?name=foldered');
    expect(list.body.items[0].folder_id).toBe(folderId);
  });

  it('answers 401 without a key', async () => {
    expect((await t.api('/rest/prompt-templates', { body: publishBody('k'), key: null })).status).toBe(401);
    expect((await t.api('/prompt-templates', { key: null })).status).toBe(401);
  });
});

describe('prompt registry: labels', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t?.close());

  it('publishing with a label creates it, and a later publish moves it', async () => {
    const v1 = await t.api('/rest/prompt-templates', { body: publishBody('labelled', 'one', { labels: ['production', 'staging'] }) });
    expect(v1.body.release_labels).toEqual(['production', 'staging']);
    await t.api('/rest/prompt-templates', { body: publishBody('labelled', 'two') });
    await t.api('/rest/prompt-templates', { body: publishBody('labelled', 'three', { labels: ['staging'] }) });
    const labels = await t.api('/prompt-templates/labelled/labels');
    expect(labels.status).toBe(200);
    const byName = Object.fromEntries(labels.body.release_labels.map((l: any) => [l.name, l.prompt_version_number]));
    expect(byName).toEqual({ production: 1, staging: 3 });
    // Default fetch: production (v1), not the latest (v3).
    const fetched = await t.api('/prompt-templates/labelled', { method: 'POST' });
    expect(fetched.status).toBe(200);
    expect(fetched.body.version).toBe(1);
    expect((await t.api('/prompt-templates/labelled', { body: { label: 'staging' } })).body.version).toBe(3);
    expect((await t.api('/prompt-templates/labelled?label=staging')).body.version).toBe(3);
  });

  it('creates, moves and deletes labels through the label endpoints', async () => {
    const published = await t.api('/rest/prompt-templates', { body: publishBody('moving', 'one') });
    await t.api('/rest/prompt-templates', { body: publishBody('moving', 'two') });
    const id = published.body.id;
    const created = await t.api(`/prompts/${id}/label`, { body: { name: 'prod', prompt_version_number: 1 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(Number), name: 'prod', prompt_version_number: 1, prompt_id: id });

    const duplicate = await t.api(`/prompts/${id}/label`, { body: { name: 'prod', prompt_version_number: 2 } });
    expect(duplicate.status).toBe(409);

    const moved = await t.api(`/prompt-labels/${created.body.id}`, { method: 'PATCH', body: { prompt_version_number: 2 } });
    expect(moved.status).toBe(200);
    expect(moved.body.prompt_version_number).toBe(2);
    expect((await t.api('/prompt-templates/moving', { body: { label: 'prod' } })).body.version).toBe(2);
    const list = await t.api('/prompt-templates?label=prod');
    expect(list.body.items.map((i: any) => [i.prompt_name, i.version])).toEqual([['moving', 2]]);

    expect((await t.api(`/prompt-labels/${created.body.id}`, { method: 'PATCH', body: { prompt_version_number: 9 } })).status).toBe(404);
    expect((await t.api(`/prompt-labels/${created.body.id}`, { method: 'PATCH', body: { prompt_version_number: 0 } })).status).toBe(422);
    expect((await t.api(`/prompts/${id}/label`, { body: { name: 'x', prompt_version_number: 7 } })).status).toBe(404);
    expect((await t.api(`/prompts/99999/label`, { body: { name: 'x', prompt_version_number: 1 } })).status).toBe(404);

    const deleted = await t.api(`/prompt-labels/${created.body.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await t.api(`/prompt-labels/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await t.api('/prompt-templates/moving', { body: { label: 'prod' } })).status).toBe(404);
    expect((await t.api('/prompt-templates?label=prod')).body.items).toEqual([]);
  });

  it('answers 404 for unknown versions and labels, 422 for version 0 or both selectors', async () => {
    await t.api('/rest/prompt-templates', { body: publishBody('sel', 'one') });
    expect((await t.api('/prompt-templates/sel', { body: { version: 5 } })).status).toBe(404);
    expect((await t.api('/prompt-templates/sel', { body: { label: 'nope' } })).status).toBe(404);
    expect((await t.api('/prompt-templates/sel?version=5')).status).toBe(404);
    expect((await t.api('/prompt-templates/sel?label=nope')).status).toBe(404);
    const zero = await t.api('/prompt-templates/sel', { body: { version: 0 } });
    expect(zero.status).toBe(422);
    expect(zero.body.detail[0].loc).toEqual(['body', 'version']);
    expect((await t.api('/prompt-templates/sel?version=0')).status).toBe(422);
    expect((await t.api('/prompt-templates/sel', { body: { version: 1, label: 'x' } })).status).toBe(422);
    expect((await t.api('/prompt-templates/unknown-template', { method: 'POST' })).status).toBe(404);
    expect((await t.api('/prompt-templates/424242', { method: 'POST' })).status).toBe(404);
  });
});

describe('prompt registry: list, history, archive, workspaces', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t?.close());

  it('lists newest first in a page envelope, filtered by label, name and tags', async () => {
    for (let i = 1; i <= 5; i++) {
      await t.api('/rest/prompt-templates', {
        body: publishBody(`List Item ${i}`, `text ${i}`, { labels: i % 2 ? ['prod'] : [], template: { tags: i <= 2 ? ['early', 'x'] : ['late'] } }),
      });
    }
    await t.api('/rest/prompt-templates', { body: publishBody('List Item 1', 'text 1 v2') });
    const all = await t.api('/prompt-templates?per_page=2');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, per_page: 2, total: 5, pages: 3, has_next: true, has_prev: false, next_num: 2, prev_num: null });
    expect(all.body.items.map((i: any) => i.prompt_name)).toEqual(['List Item 1', 'List Item 5']);
    expect(all.body.items[0]).toMatchObject({ version: 2, tags: ['early', 'x'], folder_id: null, commit_message: null });
    expect(all.body.items[0].llm_kwargs).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2 });
    const last = await t.api('/prompt-templates?per_page=2&page=3');
    expect(last.body).toMatchObject({ has_next: false, has_prev: true, next_num: null, prev_num: 2 });
    expect(last.body.items).toHaveLength(1);

    const labelled = await t.api('/prompt-templates?label=prod');
    expect(labelled.body.total).toBe(3);
    // Item 1's prod label is on version 1 though version 2 is the latest.
    const item1 = labelled.body.items.find((i: any) => i.prompt_name === 'List Item 1');
    expect(item1.version).toBe(1);
    expect(item1.prompt_template.messages[1].content[0].text).toBe('text 1');

    const named = await t.api('/prompt-templates?name=item 4');
    expect(named.body.items.map((i: any) => i.prompt_name)).toEqual(['List Item 4']);
    const tagged = await t.api('/prompt-templates?tags=early&tags=x');
    expect(tagged.body.items.map((i: any) => i.prompt_name).sort()).toEqual(['List Item 1', 'List Item 2']);
    expect((await t.api('/prompt-templates?tags=early&tags=late')).body.total).toBe(0);
    expect((await t.api('/prompt-templates?per_page=101')).status).toBe(422);
    expect((await t.api('/prompt-templates?page=0')).status).toBe(422);
  });

  it('lists version history newest first with labels', async () => {
    const one = await t.api('/rest/prompt-templates', { body: publishBody('history', 'a', { labels: ['production'] }) });
    await t.api('/rest/prompt-templates', { body: publishBody('history', 'b', { version: { commit_message: 'second' } }) });
    const res = await t.api(`/api/public/v2/prompt-templates/${one.body.id}/versions`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.items.map((v: any) => [v.version_number, v.commit_message, v.release_labels])).toEqual([
      [2, 'second', []],
      [1, null, ['production']],
    ]);
    expect((await t.api('/api/public/v2/prompt-templates/99999/versions')).status).toBe(404);
  });

  it('archives a template: gone from lists and fetches, name free again, logged requests keep the link', async () => {
    const pub = await t.api('/rest/prompt-templates', { body: publishBody('doomed', 'bye {x}', { labels: ['doomed-label'] }) });
    expect((await t.api('/prompt-templates?label=doomed-label')).body.total).toBe(1);
    const logged = await t.api('/log-request', {
      body: {
        provider: 'openai', model: 'gpt-4o-mini', prompt_name: 'doomed',
        input: chatTemplate('bye 1'), output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'ok' }] }] },
        request_start_time: '2026-01-01T00:00:00Z', request_end_time: '2026-01-01T00:00:01Z',
      },
    });
    expect(logged.body.prompt_version.prompt_template.messages[1].content[0].text).toBe('bye {x}');
    const archived = await t.api(`/api/public/v2/prompt-templates/${pub.body.id}`, { method: 'DELETE' });
    expect(archived.status).toBe(204);
    expect((await t.api(`/api/public/v2/prompt-templates/${pub.body.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await t.api('/prompt-templates/doomed', { method: 'POST' })).status).toBe(404);
    expect((await t.api('/prompt-templates?name=doomed')).body.total).toBe(0);
    const byLabel = await t.api('/prompt-templates?label=doomed-label');
    expect([byLabel.body.total, byLabel.body.items]).toEqual([0, []]);
    const request = await t.api(`/api/public/v2/requests/${logged.body.id}`);
    expect(request.body.prompt_id).toBe(pub.body.id);
    expect(request.body.prompt_version.prompt_template.messages[1].content[0].text).toBe('bye {x}');
    const again = await t.api('/rest/prompt-templates', { body: publishBody('doomed', 'hello again') });
    expect(again.body).toMatchObject({ version_number: 1 });
    expect(again.body.id).not.toBe(pub.body.id);
  });

  it("never shows another workspace's templates or labels", async () => {
    const mine = await t.api('/rest/prompt-templates', { body: publishBody('private', 'secret', { labels: ['production'] }) });
    const other = await t.api('/api/public/v2/workspaces', { body: { name: 'Other' } });
    expect(other.status).toBe(201);
    const key = other.body.api_key as string;
    expect((await t.api('/prompt-templates/private', { method: 'POST', key })).status).toBe(404);
    expect((await t.api(`/prompt-templates/${mine.body.id}`, { method: 'POST', key })).status).toBe(404);
    expect((await t.api(`/prompt-templates/${mine.body.id}`, { key })).status).toBe(404);
    expect((await t.api(`/prompt-templates/${mine.body.id}/labels`, { key })).status).toBe(404);
    expect((await t.api(`/api/public/v2/prompt-templates/${mine.body.id}/versions`, { key })).status).toBe(404);
    expect((await t.api(`/api/public/v2/prompt-templates/${mine.body.id}`, { method: 'DELETE', key })).status).toBe(404);
    expect((await t.api(`/prompts/${mine.body.id}/label`, { body: { name: 'x', prompt_version_number: 1 }, key })).status).toBe(404);
    const labelId = (await t.api('/prompt-templates/private/labels')).body.release_labels[0].id;
    expect((await t.api(`/prompt-labels/${labelId}`, { method: 'PATCH', body: { prompt_version_number: 1 }, key })).status).toBe(404);
    expect((await t.api(`/prompt-labels/${labelId}`, { method: 'DELETE', key })).status).toBe(404);
    expect((await t.api('/prompt-templates', { key })).body.total).toBe(0);
    // The same name is free in the other workspace, and numbered from 1 there.
    const theirs = await t.api('/rest/prompt-templates', { body: publishBody('private', 'theirs'), key });
    expect(theirs.body.version_number).toBe(1);
    expect((await t.api('/prompt-templates/private', { method: 'POST' })).body.prompt_template.messages[1].content[0].text).toBe('secret');
  });

  it('keeps everything across a restart', async () => {
    await t.api('/rest/prompt-templates', { body: publishBody('durable', 'kept', { labels: ['production'] }) });
    await t.restart();
    const res = await t.api('/prompt-templates/durable', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.prompt_template.messages[1].content[0].text).toBe('kept');
  });
});
