import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
let otherKey: string;

beforeAll(async () => {
  t = await startServer();
  otherKey = (await t.api('/api/public/v2/workspaces', { body: { name: 'Other' } })).body.api_key;
});
afterAll(() => t.close());

async function logged(overrides: Record<string, unknown> = {}): Promise<number> {
  const res = await t.api('/log-request', { body: logBody(overrides) });
  expect(res.status).toBe(201);
  return res.body.id;
}
const review = (id: number, body: unknown, key?: string) => t.api(`/api/public/v2/requests/${id}`, { method: 'PATCH', body, key });
const get = async (id: number) => (await t.api(`/api/public/v2/requests/${id}`)).body;

describe('PATCH /api/public/v2/requests/{id}', () => {
  it('stores a note and named scores and answers the record', async () => {
    const id = await logged();
    const res = await review(id, { note: 'Too long-winded.', scores: { helpful: 40 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id, note: 'Too long-winded.', scores: { helpful: 40 }, scored: true, score: 0 });
    expect(await get(id)).toMatchObject({ note: 'Too long-winded.', scores: { helpful: 40 }, scored: true });
  });

  it('merges scores by name; null removes one; an absent note stays, a null note goes', async () => {
    const id = await logged({ score: 90, score_name: 'accuracy' });
    await review(id, { note: 'first look', scores: { helpful: 80 } });
    expect((await review(id, { scores: { tone: 60 } })).body).toMatchObject({ scores: { accuracy: 90, helpful: 80, tone: 60 }, note: 'first look' });
    expect((await review(id, { scores: { helpful: 85, accuracy: null } })).body.scores).toEqual({ helpful: 85, tone: 60 });
    const cleared = await review(id, { note: null, scores: { helpful: null, tone: null } });
    expect(cleared.body).toMatchObject({ note: null, scores: {}, scored: false });
  });

  it('the default score is the record’s `score` and is filtered like one; removing it leaves the implied 0', async () => {
    const id = await logged({ tags: ['default-score'] });
    expect((await review(id, { scores: { default: 70 } })).body).toMatchObject({ score: 70, scored: true });
    const high = await t.api('/api/public/v2/requests?tags=default-score&score_min=70');
    expect(high.body.items.map((r: { id: number }) => r.id)).toEqual([id]);
    expect((await review(id, { scores: { default: null } })).body).toMatchObject({ score: 0, scored: false, scores: {} });
    expect((await t.api('/api/public/v2/requests?tags=default-score&score_min=70')).body.items).toEqual([]);
  });

  it('an empty note removes the note', async () => {
    const id = await logged();
    await review(id, { note: 'x' });
    expect((await review(id, { note: '' })).body.note).toBeNull();
  });

  it('accepts a note of 10,000 characters (counted as characters, not UTF-16 units), scores 0 and 100, names of 255', async () => {
    const id = await logged();
    const note = '😀'.repeat(10_000);
    const res = await review(id, { note, scores: { ['n'.repeat(255)]: 100, zero: 0 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.note).toBe(note);
    expect(res.body.scores).toEqual({ ['n'.repeat(255)]: 100, zero: 0 });
  });

  it.each([
    ['a note of 10,001 characters', { note: 'a'.repeat(10_001) }, ['body', 'note']],
    ['a note that is not text', { note: 12 }, ['body', 'note']],
    ['a score of 101', { scores: { helpful: 101 } }, ['body', 'scores', 'helpful']],
    ['a score of -1', { scores: { helpful: -1 } }, ['body', 'scores', 'helpful']],
    ['a fractional score', { scores: { helpful: 50.5 } }, ['body', 'scores', 'helpful']],
    ['a score given as text', { scores: { helpful: '50' } }, ['body', 'scores', 'helpful']],
    ['an empty score name', { scores: { '': 50 } }, ['body', 'scores', '']],
    ['a score name of 256 characters', { scores: { ['n'.repeat(256)]: 50 } }, ['body', 'scores', 'n'.repeat(256)]],
    ['scores that are not an object', { scores: [50] }, ['body', 'scores']],
  ])('refuses %s with 422 naming the field, and writes nothing', async (_name, body, loc) => {
    const id = await logged();
    await review(id, { note: 'kept', scores: { kept: 1 } });
    const res = await review(id, { note: 'changed', scores: { other: 5 }, ...body } as Record<string, unknown>);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect(await get(id)).toMatchObject({ note: 'kept', scores: { kept: 1 } });
  });

  it('answers 404 for an unknown id and for another workspace’s request, and writes nothing', async () => {
    const id = await logged();
    expect((await review(999_999, { note: 'x' })).status).toBe(404);
    expect((await review(id, { note: 'theirs', scores: { x: 1 } }, otherKey)).status).toBe(404);
    expect(await get(id)).toMatchObject({ note: null, scores: {}, scored: false });
  });
});

describe('explorer filters has_note, scored and score_name', () => {
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    ids.plain = await logged({ tags: ['rf'] });
    ids.logScored = await logged({ tags: ['rf', 'prod'], score: 0 });
    ids.noted = await logged({ tags: ['rf', 'prod'] });
    ids.reviewed = await logged({ tags: ['rf', 'prod'] });
    await review(ids.noted, { note: 'look again' });
    await review(ids.reviewed, { scores: { helpful: 90 } });
  });
  const idsOf = async (query: string) => {
    const res = await t.api(`/api/public/v2/requests?tags=rf&${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b);
  };

  it('has_note', async () => {
    expect(await idsOf('has_note=true')).toEqual([ids.noted]);
    expect(await idsOf('has_note=false')).toEqual([ids.plain, ids.logScored, ids.reviewed]);
  });

  it('scored: a score given explicitly (log body or review) counts, the implied 0 does not', async () => {
    expect(await idsOf('scored=true')).toEqual([ids.logScored, ids.reviewed]);
    expect(await idsOf('scored=false')).toEqual([ids.plain, ids.noted]);
    expect(await idsOf('tags=prod&scored=false')).toEqual([ids.noted]);
  });

  it('score_name', async () => {
    expect(await idsOf('score_name=helpful')).toEqual([ids.reviewed]);
    expect(await idsOf('score_name=default')).toEqual([ids.logScored]);
    expect(await idsOf('score_name=nobody')).toEqual([]);
  });

  it.each([
    ['scored=yes', 'scored'],
    ['has_note=1', 'has_note'],
    ['score_name=', 'score_name'],
  ])('refuses %s with 422', async (query, field) => {
    const res = await t.api(`/api/public/v2/requests?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', field]);
  });
});
