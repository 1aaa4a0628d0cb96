import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '../support/mock-llm';
import { startUi, type UiSession } from '../support/ui';

describe('Prompt page: Try it runs the version on a provider', () => {
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

  it('streams the answer with tokens, cost and latency, links the logged request, saves edits as a labelled version, and stays inside the viewport', async () => {
    const { page, t } = ui;
    await t.api('/api/public/v2/providers', { body: { name: 'local-mock', client: 'openai', base_url: mock.baseUrl } });
    const longToken = 'Answer_with_a_very_long_unbroken_token_'.repeat(20);
    const published = await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'try-me' },
        prompt_version: {
          prompt_template: { type: 'chat', input_variables: [], messages: [{ role: 'system', content: [{ type: 'text', text: `Be terse. ${longToken}` }] }, { role: 'user', content: [{ type: 'text', text: 'Tell me about {topic}' }] }] },
          commit_message: 'First',
          metadata: { model: { provider: 'local-mock', name: 'mock-chat', parameters: { temperature: 0.3, max_tokens: 100 } } },
        },
      },
    });
    await ui.open(`/prompts?template=${published.body.id}&tab=try`);
    await page.getByLabel('Variable topic').fill('otters and rivers');
    expect(await page.getByLabel('Run provider').inputValue()).toBe('local-mock');
    expect(await page.getByLabel('Run model').inputValue()).toBe('mock-chat');
    // The model field suggests the registered provider's models, and a built-in's priced ones.
    const suggested = () => page.locator('form datalist option').evaluateAll((options) => options.map((o) => o.getAttribute('value')));
    await expect.poll(suggested).toEqual(['mock-chat', 'mock-embed']);
    await page.getByLabel('Run provider').selectOption('openai');
    await expect.poll(suggested).toContain('gpt-4o-mini');
    await page.getByLabel('Run provider').selectOption('local-mock');
    await expect.poll(suggested).toEqual(['mock-chat', 'mock-embed']);
    await page.getByLabel('Temperature').fill('0.9');

    mock.setLatency(400);
    await page.getByRole('button', { name: 'Run v1' }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('status').getByText('Streaming…').waitFor();
    await expect.poll(() => page.getByTestId('answer-text').textContent()).toBe('echo: Tell me about otters and rivers');
    mock.setLatency(0);
    const stats = page.getByTestId('run-stats');
    await stats.waitFor();
    expect(await stats.textContent()).toMatch(/^6 in · 7 out tokens\s*cost \$0\s*latency \d+ ms\s*Logged as request #\d+ →$/);
    expect(mock.calls.at(-1)!.body).toMatchObject({ model: 'mock-chat', temperature: 0.9, max_tokens: 100, stream: true });
    const requestId = Number(/#(\d+)/.exec((await stats.textContent())!)![1]);
    expect((await t.api(`/api/public/v2/requests/${requestId}`)).body).toMatchObject({ prompt_name: 'try-me', prompt_version_number: 1, provider: 'local-mock' });

    // Item 2: rendered, the panel fits the viewport; long lines wrap or scroll inside their own box.
    await page.getByRole('button', { name: 'Render v1' }).click();
    await page.getByLabel('LLM kwargs').waitFor();
    const overflow = await page.evaluate(() => [...document.querySelectorAll('.pane')].map((p) => p.scrollWidth - p.clientWidth));
    expect(overflow.every((px) => px <= 1)).toBe(true);
    await ui.screenshot('prompt-try-run');

    // Edit in place, run the draft, then publish it as v2 with a label in one step.
    await page.getByLabel('Try message 2').fill('Summarise {topic} in a word');
    await page.getByRole('button', { name: 'Run edited' }).click();
    await expect.poll(() => page.getByTestId('answer-text').textContent()).toBe('echo: Summarise otters and rivers in a word');
    await page.getByRole('button', { name: 'Save as new version…' }).click();
    await page.getByLabel('New version commit message').fill('One-word summary');
    await page.getByLabel('New version label').fill('staging');
    await page.getByRole('button', { name: 'Publish new version' }).click();
    await page.getByLabel('Version history').locator('tr', { hasText: 'v2' }).getByText('staging').waitFor();
    const v2 = (await t.api('/prompt-templates/try-me?label=staging')).body;
    expect(v2).toMatchObject({ version: 2, commit_message: 'One-word summary', metadata: { model: { provider: 'local-mock', name: 'mock-chat', parameters: { temperature: 0.9, max_tokens: 100 } } } });
    expect(v2.prompt_template.messages[1].content[0].text).toBe('Summarise {topic} in a word');
    await page.getByRole('button', { name: 'Run v2' }).waitFor();
    // The provider's model list was asked for once, though the panel mounted again for v2.
    expect(mock.calls.filter((c) => c.path.endsWith('/models'))).toHaveLength(1);

    // A provider failure shows the provider's message and links the logged ERROR request; only the
    // run's chat call may take it (not a model list the page asks for meanwhile).
    mock.failNext(1, 400, { path: '/chat/completions' });
    await page.getByRole('button', { name: 'Run v2' }).click();
    await answer.getByRole('alert').getByText(/injected failure 400/).waitFor();
    await answer.getByRole('link', { name: /logged as request #\d+/ }).waitFor();
    expect(ui.problems).toEqual([]);
  });

  it('tests a provider connection from Settings: ok, latency and its models', async () => {
    const { page, t } = ui;
    await t.api('/api/public/v2/providers', { body: { name: 'probe-me', client: 'openai', base_url: mock.baseUrl } });
    await ui.open('/settings');
    const row = page.getByLabel('Providers').locator('tbody tr', { hasText: 'probe-me' });
    await row.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => row.getByRole('status').textContent()).toMatch(/^Connected · \d+ ms · 2 models$/);
    expect(await row.getByTestId('provider-models').textContent()).toBe('mock-chat, mock-embed');
    // The connection test reads the model list: that call, and no other, fails.
    mock.failNext(1, 401, { path: '/models' });
    await row.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => row.getByRole('status').textContent()).toMatch(/^Failed: .*401.*injected failure 401/);
    await ui.screenshot('settings-provider-test');
  });

  it('Settings → Connect an app: both variables, SDK and OpenTelemetry snippets, a key in one click that works', async () => {
    const { page, t } = ui;
    await ui.open('/settings');
    const connect = page.getByRole('region', { name: 'Connect an app' });
    expect(await connect.getByTestId('connect-base-url').textContent()).toBe(t.url);
    expect(await connect.getByTestId('connect-snippet').textContent()).toBe(`export PROMPTLAYER_API_KEY=<your API key>\nexport PROMPTLAYER_BASE_URL=${t.url}`);

    await connect.getByRole('button', { name: 'Create a key for this app' }).click();
    const key = (await connect.getByTestId('connect-key').textContent())!;
    expect(key).toMatch(/^pl_/);
    expect((await t.api('/api/public/v2/requests', { key })).status).toBe(200);
    expect(await connect.getByTestId('connect-snippet').textContent()).toContain(`PROMPTLAYER_API_KEY=${key}`);
    await page.getByLabel('API keys').locator('tbody tr', { hasText: key.slice(0, 10) }).waitFor();

    await connect.getByRole('tab', { name: 'JavaScript SDK' }).click();
    expect(await connect.getByTestId('connect-snippet').textContent()).toContain(`new PromptLayer({ apiKey: "${key}", baseURL: "${t.url}" })`);
    await connect.getByRole('tab', { name: 'Python SDK' }).click();
    expect(await connect.getByTestId('connect-snippet').textContent()).toContain(`os.environ.setdefault("PROMPTLAYER_BASE_URL", "${t.url}")`);
    await connect.getByRole('tab', { name: 'OpenTelemetry' }).click();
    const otel = (await connect.getByTestId('connect-snippet').textContent())!;
    expect(otel).toContain(`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${t.url}/v1/traces`);
    expect(otel).toContain(`OTEL_EXPORTER_OTLP_TRACES_HEADERS="x-api-key=${key}"`);

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await connect.getByRole('button', { name: 'Copy OpenTelemetry snippet' }).click();
    await connect.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(otel);
    await connect.scrollIntoViewIfNeeded();
    await ui.screenshot('settings-connect');
    expect(ui.problems).toEqual([]);
  });
});
