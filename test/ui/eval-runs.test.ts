import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '../support/mock-llm';
import { startUi, type UiSession } from '../support/ui';

/**
 * Issue 12 items 4, 5, 7 and 8 in the browser: the run dialog's dataset version and estimate, live
 * cards, the manifest and "Run again exactly" after a label moved, and a comparison whose verdicts
 * do not depend on the order the runs were ticked.
 */
describe('Evaluation runs: dialog, manifest, live cards, comparison', () => {
  let ui: UiSession;
  let mock: MockLlm;
  beforeAll(async () => {
    // One call at a time and 300 ms each, so the first run moves visibly (its live cards are read
    // while the mock holds its second call, not while the clock runs).
    mock = await startMockLlm({ latencyMs: 300 });
    ui = await startUi({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test' }, evalConcurrency: 1 });
  });
  afterAll(async () => {
    await ui?.close();
    await mock?.close();
  });

  const publishPrompt = async (text: string) => {
    const res = await ui.t.api('/rest/prompt-templates', {
      body: {
        prompt_template: { prompt_name: 'greeter' },
        prompt_version: {
          prompt_template: { type: 'chat', input_variables: ['question'], messages: [{ role: 'user', content: [{ type: 'text', text }] }] },
          metadata: { model: { provider: 'openai', name: 'gpt-4o-mini', parameters: { temperature: 0 } } },
        },
        release_labels: ['production'],
      },
    });
    expect(res.status).toBe(201);
  };

  it('runs on a chosen version with live cards, reruns exactly after a label moved, and compares in either tick order', async () => {
    const { page, t } = ui;
    const dialog = page.getByRole('dialog');
    const upload = (rows: string[]) =>
      t.api('/api/public/v2/dataset-versions/from-file', {
        body: { dataset_group_id: group, file_name: 'q.csv', file_content_base64: Buffer.from(`question\n${rows.join('\n')}\n`).toString('base64') },
      });
    const group = (await t.api('/api/public/v2/dataset-groups', { body: { name: 'greetings' } })).body.dataset_group.id as number;
    expect((await upload(['hello there', 'where is my order', 'hello again', 'refund please'])).status).toBe(201);
    expect((await upload(['hello there', 'where is my order', 'hello again', 'refund please', 'hi', 'bye'])).status).toBe(201);
    await publishPrompt('{question}');
    const pipeline = await t.api('/reports', {
      body: {
        dataset_group_id: group, name: 'Greeting check',
        columns: [
          { column_type: 'PROMPT_TEMPLATE', name: 'reply', configuration: { template: { name: 'greeter', label: 'production' }, prompt_template_variable_mappings: { question: 'question' } } },
          { column_type: 'CONTAINS', name: 'says hello', configuration: { source: 'reply', value: 'hello' }, is_part_of_score: true },
        ],
      },
    });
    expect(pipeline.status).toBe(201);
    const pipelineId = pipeline.body.report_id as number;

    // The dialog: latest published by default, the estimate follows the version, the draft warns.
    await ui.open(`/evaluations?pipeline=${pipelineId}`);
    await page.getByRole('button', { name: '▶ Run…' }).click();
    const version = dialog.getByLabel('Dataset version');
    // The dialog opens before its versions arrive (an empty list at first): poll for the exact options.
    await expect.poll(() => version.locator('option').allTextContents()).toEqual(['v2 · 6 rows (latest)', 'v1 · 4 rows', 'Draft (unpublished) · 0 rows']);
    expect(await version.inputValue()).toBe('2');
    expect(await dialog.getByTestId('estimate').textContent()).toBe('6 rows × 1 LLM column = 6 LLM calls');
    await dialog.getByText('Calls a model: reply (Prompt Template)').waitFor();
    await version.selectOption('-1');
    await dialog.getByRole('note', { name: 'Draft warning' }).getByText(/cannot be repeated exactly/).waitFor();
    // The draft is empty here: nothing to run.
    expect(await dialog.getByRole('button', { name: '▶ Run on the draft' }).isDisabled()).toBe(true);
    await dialog.getByText('This version has no rows').waitFor();
    await ui.screenshot('evaluations-run-dialog-draft');
    await version.selectOption('1');
    expect(await dialog.getByRole('note').count()).toBe(0);
    expect(await dialog.getByTestId('estimate').textContent()).toBe('4 rows × 1 LLM column = 4 LLM calls');
    await dialog.getByLabel('Run name').fill('first');
    await ui.screenshot('evaluations-run-dialog');
    // The mock answers the first row's call and holds the next until the live cards are read: the
    // run is mid-way for certain, not only while 300 ms calls outlast a poll on a busy machine.
    const release = mock.hold(1);
    await dialog.getByRole('button', { name: '▶ Start run' }).click();

    // Live: the first row's tokens (2 in, 3 out) show while the run is still running.
    await page.getByRole('heading', { name: 'first' }).waitFor();
    const tokens = page.getByTestId('run-tokens');
    await expect.poll(() => tokens.textContent(), { timeout: 10_000 }).toBe('5');
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    expect(await page.getByTestId('run-duration').textContent()).not.toBe('—');
    release();
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 30_000 });
    const firstId = Number(new URL(page.url()).searchParams.get('run'));
    const finished = (await t.api(`/reports/${firstId}`)).body;
    expect(await tokens.textContent()).toBe(String(finished.stats.input_tokens + finished.stats.output_tokens));
    const report = page.getByRole('table', { name: 'Report' });
    await expect.poll(() => report.locator('td[data-status="PASSED"]').count()).toBe(4 + 2);
    expect(await report.locator('td[data-status="FAILED"]').count()).toBe(2);
    expect(await report.locator('td[data-status="QUEUED"]').count()).toBe(0);

    // The manifest names the dataset version and the prompt version the label pointed to.
    const manifest = page.getByRole('region', { name: 'Manifest' });
    expect(await manifest.getByTestId('manifest-dataset').textContent()).toMatch(/^version v1 · 4 rows · sha256 [0-9a-f]{12}…/);
    expect(await manifest.getByRole('row', { name: /reply/ }).getByTestId('manifest-prompt').textContent()).toBe('greeter v1 (label “production” at start)');
    await manifest.getByRole('row', { name: /reply/ }).getByText('openai / gpt-4o-mini').waitFor();
    await manifest.getByText(mock.baseUrl).waitFor();
    await page.waitForTimeout(400); // the progress bar's width transition
    await ui.screenshot('evaluations-run-manifest');

    // The label moves to a new version; "Run again exactly" still uses v1 on dataset v1.
    mock.setLatency(0);
    await publishPrompt('hello {question}');
    await page.getByRole('button', { name: '↻ Run again exactly' }).click();
    await page.getByRole('heading', { name: 'first (again)' }).waitFor();
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 30_000 });
    expect(await manifest.getByRole('row', { name: /reply/ }).getByTestId('manifest-prompt').textContent()).toBe('greeter v1');
    expect(await manifest.getByTestId('manifest-dataset').textContent()).toMatch(/^version v1 · 4 rows/);
    // The repeated run's name comes with the pipeline's run list, which can land after the manifest (“#2” until then).
    await expect.poll(() => manifest.getByTestId('manifest-repeats').textContent()).toMatch(/^“first” exactly/);
    const againId = Number(new URL(page.url()).searchParams.get('run'));
    expect((await t.api(`/reports/${againId}`)).body.report.manifest.columns.find((c: { name: string }) => c.name === 'reply').resolved.version_number).toBe(1);

    // "Run again (latest)" follows the label and the latest dataset version.
    await page.getByRole('button', { name: 'Run again (latest)' }).click();
    await page.getByRole('heading', { name: 'first (again) (again)' }).waitFor();
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 30_000 });
    expect(await manifest.getByRole('row', { name: /reply/ }).getByTestId('manifest-prompt').textContent()).toBe('greeter v2 (label “production” at start)');
    expect(await manifest.getByTestId('manifest-dataset').textContent()).toMatch(/^version v2 · 6 rows/);

    // A run on v1 with the moved label: prompt v2 says hello on every row.
    await page.getByRole('button', { name: '← Pipeline' }).click();
    await page.getByRole('button', { name: '▶ Run…' }).click();
    await dialog.getByLabel('Dataset version').selectOption('1');
    await dialog.getByLabel('Run name').fill('hello prompt');
    await dialog.getByRole('button', { name: '▶ Start run' }).click();
    await page.getByRole('heading', { name: 'hello prompt' }).waitFor();
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: '← Pipeline' }).click();

    // Compare in both tick orders: the older run is the baseline either way, and the verdicts agree.
    const verdicts = async () => {
      const comparison = page.getByRole('table', { name: 'Comparison' });
      await comparison.waitFor();
      return {
        baseline: await page.getByTestId('baseline-name').textContent(),
        improved: await page.getByTestId('improved').textContent(),
        regressed: await page.getByTestId('regressed').textContent(),
        rows: await comparison.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delta'))),
      };
    };
    const compare = async (ticks: string[]) => {
      for (const name of ticks) await page.getByLabel(`Pick ${name} to compare`).check();
      await page.getByRole('button', { name: 'Compare selected (2/4)' }).click();
      const seen = await verdicts();
      await page.getByRole('button', { name: '← Pipeline' }).click();
      for (const name of ticks) await page.getByLabel(`Pick ${name} to compare`).uncheck();
      return seen;
    };
    const forward = await compare(['first', 'hello prompt']);
    const backward = await compare(['hello prompt', 'first']);
    expect(forward).toEqual({ baseline: 'first', improved: '2', regressed: '0', rows: ['changed', 'improved', 'changed', 'improved'] });
    expect(backward).toEqual(forward);

    // Swapping makes the newer run the baseline: improvements become regressions.
    await page.getByLabel('Pick first to compare').check();
    await page.getByLabel('Pick hello prompt to compare').check();
    await page.getByRole('button', { name: 'Compare selected (2/4)' }).click();
    await page.getByRole('button', { name: '⇄ Swap baseline and candidate' }).click();
    await expect.poll(() => page.getByTestId('baseline-name').textContent()).toBe('hello prompt');
    expect(await verdicts()).toEqual({ baseline: 'hello prompt', improved: '0', regressed: '2', rows: ['changed', 'regressed', 'changed', 'regressed'] });
    const stats = page.getByRole('region', { name: 'Column changes' }).getByRole('row', { name: /says hello/ });
    await stats.getByText('within noise').waitFor();
    await stats.getByText('McNemar p = 0.500').waitFor();

    // Regressions only: the server's verdict=regressed filter.
    await page.getByLabel('Regressions only').check();
    await expect.poll(() => page.getByTestId('rows-shown').textContent()).toBe('2 of 4 rows');
    const shown = page.getByRole('table', { name: 'Comparison' }).locator('tbody tr');
    expect(await shown.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delta')))).toEqual(['regressed', 'regressed']);
    await page.getByRole('table', { name: 'Comparison' }).scrollIntoViewIfNeeded();
    await ui.screenshot('evaluations-compare-regressions');
    await page.getByRole('button', { name: '← Pipeline' }).click();

    // Three runs side by side: the oldest is the baseline, each other run a candidate against it.
    await page.getByRole('figure', { name: 'Score across runs' }).waitFor();
    await ui.screenshot('evaluations-pipeline-runs');
    for (const name of ['hello prompt', 'first (again)', 'first']) await page.getByLabel(`Pick ${name} to compare`, { exact: true }).check();
    await page.getByRole('button', { name: 'Compare selected (3/4)' }).click();
    await expect.poll(() => page.getByTestId('baseline-name').textContent()).toBe('first');
    await page.getByRole('region', { name: 'Candidate first (again)' }).waitFor();
    await page.getByRole('region', { name: 'Candidate hello prompt' }).waitFor();
    await page.getByRole('figure', { name: 'Score across runs' }).waitFor();
    const columnRow = (column: string, candidate: string) => page.getByRole('region', { name: 'Column changes' }).locator(`tr[data-column="${column}"][data-candidate="${candidate}"]`);
    await columnRow('says hello', 'hello prompt').getByText('within noise').waitFor();
    await columnRow('says hello', 'first (again)').getByText('no change').waitFor();
    await ui.screenshot('evaluations-compare-three');
    // The comparison has the page's width: no pipeline list beside it, and three runs' column
    // changes fit without scrolling sideways; "← Pipeline" brings the list back.
    expect(await page.getByRole('listbox', { name: 'Pipelines' }).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Column changes' }).evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    await page.getByRole('button', { name: '← Pipeline' }).click();
    await page.getByRole('listbox', { name: 'Pipelines' }).getByText('Greeting check').waitFor();
    expect(ui.problems).toEqual([]);
  });
});
