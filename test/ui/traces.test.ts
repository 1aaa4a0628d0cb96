import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiSession } from '../support/ui';

const SECOND = 1_000_000_000n;
const T0 = 1_795_000_000n * SECOND;
let counter = 0x500;
const id = (digits: number) => (counter++).toString(16).padStart(digits, '0');

/** A span as the PromptLayer JS SDK exports it; offsets in milliseconds from T0. */
function span(traceId: string, spanId: string, parent: string | null, name: string, fromMs: number, toMs: number, extra: Record<string, unknown> = {}) {
  const ns = (ms: number) => String(T0 + BigInt(Math.round(ms * 1e6)));
  return {
    name, context: { trace_id: traceId, span_id: spanId }, kind: 'SpanKind.INTERNAL', parent_id: parent,
    start_time: ns(fromMs), end_time: ns(toMs), status: { status_code: 'StatusCode.OK' }, attributes: {}, events: [],
    resource: { attributes: { 'service.name': 'ui-test' } }, ...extra,
  };
}

describe('Traces page', () => {
  let ui: UiSession;
  beforeAll(async () => {
    ui = await startUi();
  });
  afterAll(() => ui?.close());

  it('opens a trace of nested spans, expands, selects the LLM span and jumps to its request and back', async () => {
    const traceId = id(32);
    const [root, plan, retrieve, llm, tool] = [id(16), id(16), id(16), id(16), id(16)];
    const sent = await ui.t.api('/spans-bulk', {
      body: {
        spans: [
          span(traceId, root, null, 'checkout agent', 0, 2000),
          span(traceId, plan, root, 'plan', 10, 1500),
          span(traceId, retrieve, plan, 'retrieve orders', 20, 300),
          span(traceId, llm, plan, 'llm call', 320, 1400, {
            kind: 'SpanKind.CLIENT',
            attributes: {
              'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o-mini',
              'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'Which order shipped last?',
              'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': 'Order 1234 shipped on Friday.',
              'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 8,
            },
          }),
          span(traceId, tool, root, 'charge card', 1500, 1900, { status: { status_code: 'StatusCode.ERROR', description: 'card declined' } }),
        ],
      },
    });
    expect(sent.status).toBe(200);

    const { page } = ui;
    await ui.open('/traces');
    const row = page.locator(`tr[data-trace-id="${traceId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('checkout agent');
    await row.click();

    const tree = page.getByRole('tree', { name: 'Spans' });
    await tree.getByRole('treeitem', { name: /charge card/ }).waitFor();
    // Folded below the second level at first: the LLM span is hidden under "plan".
    expect(await tree.getByRole('treeitem', { name: /llm call/ }).count()).toBe(0);
    expect(await page.locator('.vt-row.failed').innerText()).toContain('charge card');
    await page.getByRole('button', { name: 'Expand plan' }).click();
    await tree.getByRole('treeitem', { name: /llm call/ }).click();

    const detail = page.getByRole('complementary', { name: 'Span llm call' });
    await detail.getByText('gen_ai.request.model').waitFor();
    // The linked request, rendered as chat by the request detail.
    await detail.locator('.msg-body', { hasText: 'Order 1234 shipped on Friday.' }).waitFor();
    await ui.screenshot('traces');

    // Keyboard: up moves to the sibling above, Enter on the LLM span opens its request.
    await tree.focus();
    await page.keyboard.press('ArrowUp');
    await page.getByRole('complementary', { name: 'Span retrieve orders' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('complementary', { name: 'Span llm call' }).waitFor();
    await detail.getByRole('button', { name: 'Open request' }).click();
    await page.waitForURL(/\/requests\?request=\d+/);
    const request = page.getByRole('complementary', { name: /^Request \d+$/ });
    await request.getByText('gpt-4o-mini').waitFor();

    await request.getByRole('link', { name: 'Open trace' }).click();
    await page.waitForURL(new RegExp(`/traces\\?trace=${traceId}&span=${llm}`));
    await page.getByRole('complementary', { name: 'Span llm call' }).waitFor();
    expect(ui.problems).toEqual([]);
  });

  it('draws only the rows in view of a 10,000-span trace', async () => {
    const traceId = id(32);
    const rootId = id(16);
    const spans = [span(traceId, rootId, null, 'big batch', 0, 10_000)];
    for (let i = 1; i < 10_000; i++) spans.push(span(traceId, id(16), rootId, `item ${i}`, i, i + 0.5));
    expect((await ui.t.api('/spans-bulk', { body: { spans } })).status).toBe(200);

    await ui.open(`/traces?trace=${traceId}`);
    const tree = ui.page.getByRole('tree', { name: 'Spans' });
    await tree.getByRole('treeitem', { name: /item 1\b/ }).waitFor();
    expect(await tree.getByRole('treeitem').count()).toBeLessThan(80);
    await tree.focus();
    await tree.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await tree.getByRole('treeitem', { name: /item 9999\b/ }).waitFor();
  });
});
