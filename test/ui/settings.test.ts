import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '../support/mock-llm';
import { startUi, type UiSession } from '../support/ui';

describe('Settings page', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi({}, 'dark');
  });
  afterAll(() => ui?.close());

  it('creates, shows once and revokes an API key; adds a provider; shows where the data lives', async () => {
    const { page, t } = ui;
    page.on('dialog', (d) => void d.accept());
    await ui.open('/settings');

    // Dark theme: a primary button's label is the page colour, not white (2.97:1 on the light accent).
    expect(await page.getByRole('button', { name: 'Create key' }).evaluate((b) => getComputedStyle(b).color)).toBe('rgb(20, 22, 27)');
    await page.getByLabel('New key name').fill('my-app');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^pl_/);
    expect((await t.api('/api/public/v2/requests', { key })).status).toBe(200);
    const row = page.getByLabel('API keys').locator('tbody tr', { hasText: 'my-app' });
    await row.waitFor();
    expect(await row.textContent()).toContain(key.slice(0, 10));
    expect(await row.textContent()).not.toContain(key);

    // The key this session signed in with cannot be revoked from under it.
    expect(await page.getByLabel('API keys').locator('tbody tr', { hasText: 'this session' }).getByRole('button', { name: 'Revoke' }).isDisabled()).toBe(true);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await t.api('/api/public/v2/requests', { key })).status).toBe(401);

    const providers = page.getByLabel('Providers');
    await page.getByLabel('Provider name').fill('ollama');
    await page.getByLabel('Provider base URL').fill('http://127.0.0.1:11434/v1');
    await page.getByLabel('Provider API key').fill('sk-local-secret-1234');
    await page.getByRole('button', { name: 'Add provider' }).click();
    await providers.getByRole('cell', { name: 'http://127.0.0.1:11434/v1' }).waitFor();
    expect(await providers.textContent()).not.toContain('sk-local-secret-1234');
    expect((await t.api('/api/public/v2/providers')).body.items).toMatchObject([{ name: 'ollama', client: 'openai' }]);

    // A bad provider answers with the server's message, and nothing is added.
    await page.getByLabel('Provider name').fill('openai');
    await page.getByRole('button', { name: 'Add provider' }).click();
    await providers.getByRole('alert').waitFor();
    expect((await t.api('/api/public/v2/providers')).body.items).toHaveLength(1);

    const data = page.getByLabel('Data', { exact: true });
    await data.getByText(t.dataDir, { exact: true }).waitFor();
    expect(await page.getByTestId('db-size').textContent()).toMatch(/\d+(\.\d)? (KB|MB)/);
    await ui.screenshot('settings-dark');
    // The one error is the refused provider above (Chromium logs failed fetches to the console).
    expect(ui.problems).toEqual([expect.stringContaining('422')]);
  });
});

describe('Settings: editing and testing providers, the offline switch', () => {
  let ui: UiSession;
  let mock: MockLlm;
  beforeAll(async () => {
    mock = await startMockLlm();
    ui = await startUi();
  });
  afterAll(async () => {
    await ui?.close();
    await mock?.close();
  });

  it('edits a provider in place, tests its connection, and turns offline mode on', async () => {
    const { page, t } = ui;
    await t.api('/api/public/v2/providers', { body: { name: 'lab', client: 'openai', base_url: mock.baseUrl, api_key: 'sk-lab-secret-0000' } });
    await ui.open('/settings');
    const providers = page.getByLabel('Providers');
    const row = providers.locator('tbody tr', { hasText: 'lab' });
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Edit provider name').fill('lab-2');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const edited = providers.locator('tbody tr', { hasText: 'lab-2' });
    await edited.getByRole('button', { name: 'Test connection' }).waitFor();
    expect((await t.api('/api/public/v2/providers')).body.items).toMatchObject([{ name: 'lab-2', base_url: mock.baseUrl, has_api_key: true }]);

    await edited.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => edited.getByRole('status').textContent()).toMatch(/^Connected · \d+ ms · 2 models$/);
    expect(mock.calls.at(-1)?.headers.authorization).toBe('Bearer sk-lab-secret-0000');

    const network = page.getByLabel('Network');
    await network.getByLabel('Offline').check();
    await network.getByLabel('Allowed hosts').fill('Gpu-Box.lan');
    await network.getByRole('button', { name: 'Save network setting' }).click();
    await network.getByText('Saved').waitFor();
    expect((await t.api('/api/public/v2/settings/egress')).body).toEqual({ offline: true, allowed_hosts: ['gpu-box.lan'] });
    await ui.screenshot('settings-network');

    // Offline, a provider that is not on this machine is refused before any call.
    const calls = mock.calls.length;
    await edited.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Edit provider base URL').fill(mock.baseUrl.replace('127.0.0.1', '0.0.0.0'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await edited.getByRole('cell', { name: /0\.0\.0\.0/ }).waitFor();
    await edited.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => edited.getByRole('status').textContent()).toMatch(/^Failed: Blocked by the offline setting/);
    expect(mock.calls.length).toBe(calls);

    // A host with a scheme is refused with the server's message; the saved setting stays.
    await network.getByLabel('Allowed hosts').fill('https://api.example.com');
    await network.getByRole('button', { name: 'Save network setting' }).click();
    await network.getByRole('alert').waitFor();
    expect((await t.api('/api/public/v2/settings/egress')).body.allowed_hosts).toEqual(['gpu-box.lan']);
    expect(ui.problems).toEqual([expect.stringContaining('422')]);
  });
});

describe('Settings: storage and retention', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi({});
  });
  afterAll(() => ui?.close());

  it('shows what holds the space; a retention that deletes asks first with the count, then prunes', async () => {
    const { page, t } = ui;
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const recent = new Date().toISOString();
    for (const when of [old, old, recent]) {
      const res = await t.api('/log-request', {
        body: { provider: 'openai', model: 'gpt-4o-mini', input: { type: 'chat', messages: [] }, output: { type: 'chat', messages: [] }, request_start_time: when, request_end_time: when },
      });
      expect(res.status).toBe(201);
    }
    await ui.open('/settings');
    const storage = page.getByLabel('Storage', { exact: true });
    await storage.getByText('3 requests, 0 spans').waitFor();
    expect(await page.getByTestId('storage-total').textContent()).toMatch(/\d+(\.\d)? (KB|MB)/);
    await storage.getByRole('cell', { name: /Request text index/ }).waitFor();

    await page.getByLabel('Keep days').fill('30');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByTestId('retention-confirm').waitFor();
    expect(await page.getByTestId('retention-confirm').textContent()).toContain('deletes 2 requests now');
    await ui.screenshot('settings-retention-confirm');
    // Cancel saves nothing.
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await t.api('/api/public/v2/system/storage')).body.retention.keep_days).toBeNull();

    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByRole('button', { name: 'Delete and save' }).click();
    await storage.getByRole('status').waitFor();
    expect((await t.api('/api/public/v2/system/storage')).body.retention).toEqual({ keep_days: 30, max_bytes: null });
    await expect.poll(async () => (await t.api('/api/public/v2/system/storage')).body.requests, { timeout: 10_000 }).toBe(1);
    await ui.screenshot('settings-storage');
    expect(ui.problems).toEqual([]);
  });
});
