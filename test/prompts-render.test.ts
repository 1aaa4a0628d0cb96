import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

const text = (t: string) => [{ type: 'text', text: t }];

describe('prompt registry: fetch for use (rendering and llm_kwargs)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t?.close());

  const publish = async (name: string, promptTemplate: unknown, metadata: unknown = { model: { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 0.5 } } }) => {
    const res = await t.api('/rest/prompt-templates', { body: { prompt_template: { prompt_name: name }, prompt_version: { prompt_template: promptTemplate, metadata } } });
    expect(res.status).toBe(201);
    return res.body;
  };

  it('renders f-string variables: {var}, {{ }} escapes, missing as ""', async () => {
    await publish('fs', {
      type: 'chat',
      messages: [
        { role: 'system', content: text('Answer as {persona}. JSON like {{"a": 1}}.') },
        { role: 'user', content: text('Q: {question} / {missing}! n={n} obj={obj}') },
      ],
      input_variables: ['persona', 'question'],
    });
    const res = await t.api('/prompt-templates/fs', { body: { input_variables: { persona: 'a pirate', question: 'why?', n: 3, obj: { k: [1] } } } });
    expect(res.status).toBe(200);
    const [system, user] = res.body.prompt_template.messages;
    expect(system.content[0].text).toBe('Answer as a pirate. JSON like {"a": 1}.');
    expect(user.content[0].text).toBe('Q: why? / ! n=3 obj={"k":[1]}');
    expect(res.body.llm_kwargs).toEqual({
      temperature: 0.5,
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Answer as a pirate. JSON like {"a": 1}.' },
        { role: 'user', content: 'Q: why? / ! n=3 obj={"k":[1]}' },
      ],
    });
    expect(res.body).toMatchObject({ id: expect.any(Number), prompt_name: 'fs', version: 1, workspace_id: 1, snippets: [], warning: null, provider_base_url: null, custom_provider: null });
    expect(res.body.metadata.model.api_type).toBe('chat-completions');
    // Without variables the placeholders render empty; with skip, they are left as stored.
    expect((await t.api('/prompt-templates/fs', { method: 'POST' })).body.prompt_template.messages[1].content[0].text).toBe('Q:  / ! n= obj=');
    const skipped = await t.api('/prompt-templates/fs', { body: { input_variables: { question: 'x' }, skip_input_variable_rendering: true } });
    expect(skipped.body.prompt_template.messages[1].content[0].text).toBe('Q: {question} / {missing}! n={n} obj={obj}');
  });

  it('renders jinja2 (loops, conditionals, filters; undefined as "")', async () => {
    await publish('j2', {
      type: 'chat',
      messages: [
        {
          role: 'user',
          template_format: 'jinja2',
          content: text('{% for item in items %}{{ loop.index }}. {{ item.name | upper }}{% if not loop.last %}, {% endif %}{% endfor %}|{{ nothing }}|{{ user.missing.deep }}|{{ {"a": 1} }}'),
        },
      ],
    });
    const res = await t.api('/prompt-templates/j2', { body: { input_variables: { items: [{ name: 'x' }, { name: 'y' }], user: {} } } });
    expect(res.status).toBe(200);
    expect(res.body.prompt_template.messages[0].content[0].text).toBe('1. X, 2. Y|||[object Object]');
  });

  it('keeps jinja2 sandboxed: no prototype, constructor, global or file access', async () => {
    const attempts = [
      '{{ "".constructor.constructor("return process")().pid }}',
      '{{ range.constructor("return process")().pid }}',
      '{{ cycler.constructor("return globalThis")() }}',
      '{{ data.__proto__ }}{{ data.constructor }}{{ constructor }}{{ data.toString }}',
      '{% include "/etc/passwd" %}',
      '{% for i in range(1000000) %}{% endfor %}',
    ];
    for (const [i, attempt] of attempts.entries()) {
      await publish(`evil-${i}`, { type: 'completion', content: text(attempt), template_format: 'jinja2' });
      const res = await t.api(`/prompt-templates/evil-${i}`, { body: { input_variables: { data: { a: 1 } } } });
      if (res.status === 200) {
        expect(res.body.prompt_template.content[0].text, attempt).toBe('');
      } else {
        expect(res.status, attempt).toBe(422);
        expect(res.body.detail[0].loc).toEqual(['body', 'input_variables']);
        expect(res.body.message).not.toMatch(/root:|\/bin\//);
      }
      expect(JSON.stringify(res.body)).not.toMatch(new RegExp(String(process.pid)));
    }
  });

  it('builds OpenAI completion kwargs for completion templates', async () => {
    await publish('comp', { type: 'completion', content: text('Translate: {src}') }, { model: { provider: 'openai', name: 'gpt-3.5-turbo-instruct', parameters: { max_tokens: 20 } } });
    const res = await t.api('/prompt-templates/comp', { body: { input_variables: { src: 'hola' } } });
    expect(res.body.llm_kwargs).toEqual({ max_tokens: 20, model: 'gpt-3.5-turbo-instruct', prompt: 'Translate: hola' });
  });

  it('builds Anthropic messages kwargs: system apart, max_tokens default, tools converted', async () => {
    await publish(
      'claude',
      {
        type: 'chat',
        messages: [
          { role: 'system', content: text('Be brief about {topic}.') },
          { role: 'user', content: text('Tell me about {topic}') },
          { role: 'assistant', content: [], tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: text('result') },
        ],
        tools: [{ type: 'function', function: { name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
        tool_choice: 'auto',
      },
      { model: { provider: 'anthropic', name: 'claude-3-5-haiku-latest', parameters: { temperature: 0 } } },
    );
    const res = await t.api('/prompt-templates/claude', { body: { input_variables: { topic: 'owls' } } });
    expect(res.body.llm_kwargs).toEqual({
      temperature: 0,
      model: 'claude-3-5-haiku-latest',
      max_tokens: 1024,
      system: 'Be brief about owls.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Tell me about owls' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'lookup', input: { q: 'x' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'result' }] },
      ],
      tools: [{ name: 'lookup', description: 'Look up', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
      tool_choice: { type: 'auto' },
    });
    expect(res.body.metadata.model.api_type).toBeUndefined();
  });

  it('passes OpenAI tools, keeps non-text blocks verbatim, and splices placeholder messages', async () => {
    const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png' } };
    await publish('rich', {
      type: 'chat',
      messages: [
        { role: 'system', content: text('sys') },
        { role: 'placeholder', name: 'history', content: text('{history}') },
        { role: 'user', content: [{ type: 'text', text: 'Look at {what}' }, image] },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    });
    const res = await t.api('/prompt-templates/rich', {
      body: { input_variables: { what: 'this', history: [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'reply' }] } },
    });
    expect(res.body.llm_kwargs.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: [{ type: 'text', text: 'Look at this' }, image] },
    ]);
    expect(res.body.llm_kwargs.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]);
    const noHistory = await t.api('/prompt-templates/rich', { method: 'POST' });
    expect(noHistory.body.llm_kwargs.messages.map((m: any) => m.role)).toEqual(['system', 'user']);
  });

  it('applies model and parameter overrides, and the Responses API when api_type says so', async () => {
    await publish('overrides', { type: 'chat', messages: [{ role: 'user', content: text('hi') }] }, {
      model: { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 1, max_tokens: 10 }, api_type: 'responses' },
    });
    const res = await t.api('/prompt-templates/overrides', { body: { model: 'gpt-4.1', model_parameter_overrides: { temperature: 0 } } });
    expect(res.body.metadata.model).toMatchObject({ name: 'gpt-4.1', api_type: 'responses' });
    expect(res.body.llm_kwargs).toEqual({ temperature: 0, model: 'gpt-4.1', max_output_tokens: 10, input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] });
    const asClaude = await t.api('/prompt-templates/overrides', { body: { provider: 'anthropic', model: 'claude-x' } });
    expect(asClaude.body.llm_kwargs).toMatchObject({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: text('hi') }] });
  });

  it('answers llm_kwargs null for a version without a model', async () => {
    await publish('bare', { type: 'completion', content: text('x') }, {});
    const res = await t.api('/prompt-templates/bare', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.llm_kwargs).toBeNull();
  });

  it('finds a template by id, and by a name with spaces and unicode', async () => {
    const pub = await publish('Résumé helper 📄', { type: 'completion', content: text('ok') });
    expect((await t.api(`/prompt-templates/${encodeURIComponent('Résumé helper 📄')}`, { method: 'POST' })).body.id).toBe(pub.id);
    expect((await t.api(`/prompt-templates/${pub.id}`, { method: 'POST' })).body.prompt_name).toBe('Résumé helper 📄');
  });
});
