import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from '../support/factories';
import { startUi, type UiSession } from '../support/ui';

describe('Prompts page', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  it('publishes a prompt, versions it, diffs two versions, moves a label and renders it with variables', async () => {
    const { page, t } = ui;
    await ui.open('/prompts');
    await page.getByRole('heading', { name: 'No prompt templates yet' }).waitFor();

    await page.getByRole('button', { name: 'Create your first prompt' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Prompt name').fill('support-answer');
    await dialog.getByLabel('Message 1', { exact: true }).fill('You are a {tone} support agent.');
    await dialog.getByLabel('Message 2', { exact: true }).fill('Customer asks: {question}');
    await dialog.getByLabel('Commit message').fill('First draft');
    await dialog.getByLabel('Release labels').fill('production');
    await dialog.getByRole('button', { name: 'Publish version' }).click();
    await page.getByRole('heading', { name: 'support-answer' }).waitFor();
    expect((await t.api('/prompt-templates/support-answer?label=production')).body).toMatchObject({ version: 1, commit_message: 'First draft' });

    await page.getByRole('button', { name: 'New version' }).click();
    await dialog.getByLabel('Message 2', { exact: true }).fill('Customer asks politely: {question}\nAnswer in one paragraph.');
    await dialog.getByLabel('Commit message').fill('Ask for one paragraph');
    await dialog.getByRole('button', { name: 'Publish version' }).click();
    const history = page.getByLabel('Version history');
    await history.getByText('v2').waitFor();
    expect(await history.locator('tbody tr').count()).toBe(2);
    // The label stayed on v1: publishing without a label does not move it.
    expect((await t.api('/prompt-templates/support-answer?label=production')).body.version).toBe(1);

    await page.getByRole('tab', { name: 'Compare versions' }).click();
    const diff = page.getByRole('table', { name: 'Version diff' });
    await diff.locator('.diff-cell.del', { hasText: 'Customer asks: {question}' }).waitFor();
    await diff.locator('.diff-cell.add', { hasText: 'Answer in one paragraph.' }).waitFor();
    expect(await page.getByTestId('diff-summary').textContent()).toMatch(/^2 changed lines$/);
    await ui.screenshot('prompts-diff');

    await page.getByRole('tab', { name: /^Version 2$/ }).click();
    await page.getByLabel('Label name').fill('production');
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (d) => {
        resolve(d.message());
        void d.accept();
      }),
    );
    await page.getByRole('button', { name: 'Move label here' }).click();
    expect(await asked).toContain('Move “production” from v1 to v2?');
    await history.locator('tr', { hasText: 'v2' }).getByText('production').waitFor();
    expect((await t.api('/prompt-templates/support-answer?label=production')).body.version).toBe(2);

    await page.getByRole('tab', { name: 'Try it' }).click();
    await page.getByLabel('Variable tone').fill('friendly');
    await page.getByLabel('Variable question').fill('Where is my parcel?');
    await page.getByRole('button', { name: 'Render v2' }).click();
    const rendered = page.getByLabel('Rendered template');
    await rendered.getByText('You are a friendly support agent.').waitFor();
    await rendered.getByText(/Customer asks politely: Where is my parcel\?/).waitFor();
    await page.getByLabel('LLM kwargs').getByText('"gpt-4o-mini"').waitFor();

    await page.reload();
    await page.getByRole('tab', { name: 'Try it', selected: true }).waitFor();

    // A request logged against the prompt: found by the Prompt filter, linked back to its version.
    const linked = await t.api('/log-request', { body: logBody({ ...chat('Where is my parcel?'), prompt_name: 'support-answer', prompt_version_number: 1 }) });
    expect((await t.api('/log-request', { body: logBody() })).status).toBe(201);
    await page.getByRole('link', { name: /Requests/ }).click();
    await page.getByTestId('request-count').getByText('2 logged').waitFor();
    await page.getByLabel('Prompt', { exact: true }).selectOption({ label: 'support-answer' });
    await page.getByTestId('request-count').getByText('1 matching').waitFor();
    await page.locator(`.vt-row[data-request-id="${linked.body.id}"]`).click();
    await page.getByRole('link', { name: 'support-answer v1' }).click();
    await page.getByRole('heading', { name: 'support-answer' }).waitFor();
    await page.getByRole('tab', { name: /^Version 1$/, selected: true }).waitFor();
    expect(ui.problems).toEqual([]);
  });
  it('keeps a version’s tabs and label field inside the pane in a 1024 px window', async () => {
    const { page, t } = ui;
    const res = await t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'narrow-window' },
        prompt_version: { prompt_template: { type: 'chat', input_variables: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] }, commit_message: 'Only one' },
      },
    });
    expect(res.status).toBe(201);
    await page.setViewportSize({ width: 1024, height: 700 });
    try {
      await ui.open(`/prompts?template=${res.body.id}`);
      await page.getByRole('heading', { name: 'narrow-window' }).waitFor();
      await page.getByRole('tab', { name: 'Try it' }).waitFor();
      const overflow = await page.evaluate(() => [...document.querySelectorAll('.pane')].map((p) => p.scrollWidth - p.clientWidth));
      expect(overflow.every((px) => px <= 1)).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });
  it('opens the prompt a /prompts/<name> link names, not the newest one, and says so when there is none', async () => {
    const { page, t } = ui;
    const publish = async (name: string) => {
      const res = await t.api('/rest/prompt-templates', {
        body: {
          prompt_template: { prompt_name: name },
          prompt_version: { prompt_template: { type: 'chat', input_variables: [], messages: [{ role: 'user', content: [{ type: 'text', text: `I am ${name}` }] }] } },
        },
      });
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    const named = await publish('deep link target');
    // Published after it, so it heads the list the page would otherwise open.
    await publish('deep link newer');

    await ui.open(`/prompts/${encodeURIComponent('deep link target')}`);
    const heading = page.locator('.pane[aria-label^="Prompt "] h1');
    await heading.waitFor();
    expect(await heading.textContent()).toBe('deep link target');
    await page.waitForURL((url) => url.pathname === '/prompts' && url.searchParams.get('template') === String(named));
    await page.getByRole('option', { name: /deep link target/, selected: true }).waitFor();

    await ui.open('/prompts/no-such-prompt');
    await page.getByRole('alert').getByText(/no-such-prompt/).waitFor();
    expect(await page.locator('.pane[aria-label^="Prompt "]').count()).toBe(0);
    expect(ui.problems.filter((p) => !/404/.test(p))).toEqual([]);
  });
});
