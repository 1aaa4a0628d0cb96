import { afterAll, beforeAll, expect, test } from 'vitest';
import { sendHttp } from '../src-server/outbound/http-client';
import { startMockLlm, type MockLlm } from './support/mock-llm';

// The outbound client writes its headers as a list and takes the URL apart itself (cheaper per
// call than setHeader and node:http's own URL handling); these pin what it sends.
let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm();
});
afterAll(async () => {
  await mock?.close();
});

test('sends the URL host, path and query, its own defaults unless the caller set them, and the body length', async () => {
  mock.resetCounters();
  const url = new URL(`${mock.baseUrl}/chat/completions?x=1`);
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'héllo' }] });
  const response = await sendHttp(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': '1' }, body });
  expect(response.status).toBe(200);
  expect(JSON.parse(await response.text()).choices[0].message.content).toBe('echo: héllo');
  const [call] = mock.calls;
  expect(call.path).toBe('/v1/chat/completions');
  expect(call.headers).toMatchObject({
    host: url.host, accept: 'application/json', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)),
    'accept-encoding': 'gzip, deflate, br', 'user-agent': 'promptledger',
  });
});

test('credentials in the URL go as basic auth; a Host the caller gives is kept', async () => {
  mock.resetCounters();
  const url = new URL(mock.baseUrl.replace('http://', 'http://us%40er:p%3Ass@') + '/models');
  const response = await sendHttp(url, { headers: { Host: 'models.example' } });
  expect(response.status).toBe(200);
  expect(mock.calls[0].headers.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
  expect(mock.calls[0].headers.host).toBe('models.example');
});

test('an abort before the answer ends the call with the reason; an aborted signal sends nothing', async () => {
  mock.resetCounters();
  mock.setLatency(2_000);
  try {
    const controller = new AbortController();
    const call = sendHttp(new URL(`${mock.baseUrl}/chat/completions`), { method: 'POST', body: '{}', signal: controller.signal });
    // The mock has the call (held by its 2 s latency) before the abort: a fixed 100 ms wait could
    // end before the call reached it on a busy machine, and then nothing would be aborted there.
    await expect.poll(() => mock.calls.length, { timeout: 10_000 }).toBe(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect.poll(() => mock.calls[0]?.aborted).toBe(true);

    const before = mock.calls.length;
    await expect(sendHttp(new URL(`${mock.baseUrl}/models`), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(mock.calls.length).toBe(before);
  } finally {
    mock.setLatency(0);
  }
});
