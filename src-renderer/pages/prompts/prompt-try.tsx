import { useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import { loadSession } from '../../api/session';
import { postEvents } from '../../api/sse';
import type {
  ChatRole, PlaygroundAnswer, PlaygroundRunBody, PromptTemplateBody, PromptVersion, Provider, ProviderClientInfo, PublishedTemplate, TemplateForUse, TemplateFormat,
} from '../../api/types';
import { ChatView } from '../../components/chat-view';
import { JsonView } from '../../components/json-view';
import { useModelSuggestions } from '../../components/model-suggestions';
import { templateVariables } from './template-text';
import { IDLE, TryAnswer, type TryState } from './try-answer';

interface Draft {
  role: ChatRole;
  text: string;
}

/** The version's messages as editable text; a completion is one user message. */
function draftOf(version: PromptVersion): Draft[] {
  const t = version.prompt_template;
  if (t.type === 'completion') return [{ role: 'user', text: t.content.map((b) => b.text ?? '').join('') }];
  return t.messages.map((m) => ({ role: m.role, text: m.content.map((b) => b.text ?? '').join('') }));
}

/** Roles the playground sends (placeholders are filled by apps, not here). */
const SENDABLE = new Set<ChatRole>(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

const numberOrNull = (text: string) => (text.trim() === '' || !Number.isFinite(Number(text)) ? null : Number(text));

/**
 * "Try it": renders the version with values for its variables and runs it on a provider, the
 * answer streaming in. Messages and parameters can be edited in place; a run of the version as
 * published is logged linked to it, an edited one as a plain request, and "Save as new version"
 * publishes the edits in one step.
 */
export function PromptTry({ templateId, name, version, onPublished }: { templateId: number; name: string; version: PromptVersion; onPublished: (version: number) => void }) {
  const api = useApi();
  const names = templateVariables(version.prompt_template);
  const model = version.metadata?.model;
  const baseParameters = (model?.parameters ?? {}) as Record<string, unknown>;
  const [values, setValues] = useState<Record<string, string>>({});
  const [rendered, setRendered] = useState<TemplateForUse | null>(null);
  const [messages, setMessages] = useState<Draft[]>(() => draftOf(version));
  const [provider, setProvider] = useState(model?.provider ?? 'openai');
  const [modelName, setModelName] = useState(model?.name ?? '');
  const [temperature, setTemperature] = useState(baseParameters.temperature === undefined ? '' : String(baseParameters.temperature));
  const [maxTokens, setMaxTokens] = useState(baseParameters.max_tokens === undefined ? '' : String(baseParameters.max_tokens));
  const [run, setRun] = useState<TryState>(IDLE);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [commit, setCommit] = useState('');
  const [label, setLabel] = useState('');
  const stop = useRef<AbortController | null>(null);
  // Leaving the page cancels the call: the server then aborts the provider's.
  useEffect(() => () => stop.current?.abort(), []);

  const clients = useLoad((a, signal) => a<{ items: ProviderClientInfo[] }>('/api/public/v2/provider-clients', { signal }), []);
  const stored = useLoad((a, signal) => a<{ items: Provider[] }>('/api/public/v2/providers', { signal }), []);
  const providerNames = [...new Set([...(clients.data?.items ?? []).map((c) => c.id), ...(stored.data?.items ?? []).map((p) => p.name), provider])];
  const suggestions = useModelSuggestions(provider, stored.data?.items);
  const modelsId = useId();

  const original = draftOf(version);
  const edited = messages.length !== original.length || messages.some((m, i) => m.text !== original[i].text || m.role !== original[i].role);
  const variables = Object.fromEntries(names.map((n) => [n, values[n] ?? '']));
  const parameters = (() => {
    const p: Record<string, unknown> = { ...baseParameters };
    delete p.temperature;
    delete p.max_tokens;
    const t = numberOrNull(temperature);
    const m = numberOrNull(maxTokens);
    if (t !== null) p.temperature = t;
    if (m !== null) p.max_tokens = Math.round(m);
    return p;
  })();

  const render = async () => {
    setError(null);
    try {
      setRendered(await api<TemplateForUse>(`/prompt-templates/${templateId}`, { body: { version: version.version_number, input_variables: variables } }));
    } catch (e) {
      setError(errorText(e));
    }
  };

  const start = async () => {
    stop.current?.abort();
    const controller = new AbortController();
    stop.current = controller;
    const t = version.prompt_template;
    const formatOf = (i: number): TemplateFormat | undefined => (t.type === 'chat' ? (t.messages[i]?.template_format as TemplateFormat | undefined) : t.template_format);
    const body: PlaygroundRunBody = edited
      ? {
          messages: messages
            .map((m, i) => ({ role: m.role as 'user', content: m.text, template_format: formatOf(i) }))
            .filter((m) => SENDABLE.has(m.role)),
          input_variables: variables,
        }
      : { prompt_name: name, version: version.version_number, input_variables: variables };
    Object.assign(body, { provider, model: modelName || undefined, parameters, stream: true });
    setRun({ ...IDLE, running: true });
    try {
      await postEvents('/api/public/v2/playground/run', loadSession()?.token ?? '', body, controller.signal, (event, data) => {
        if (event === 'delta') setRun((s) => ({ ...s, text: s.text + (data as { text: string }).text }));
        else if (event === 'done') setRun((s) => ({ ...s, running: false, text: (data as PlaygroundAnswer).output, result: data as PlaygroundAnswer }));
        else if (event === 'error') {
          const failure = data as { message?: string; request_id?: number };
          setRun((s) => ({ ...s, running: false, error: failure.message ?? 'The run failed.', failedRequestId: failure.request_id ?? null }));
        }
      });
      setRun((s) => (s.running ? { ...s, running: false, error: s.error ?? 'The stream ended without an answer.' } : s));
    } catch (e) {
      if (controller.signal.aborted) setRun((s) => ({ ...s, running: false, error: 'Stopped.' }));
      else setRun((s) => ({ ...s, running: false, error: errorText(e) }));
    }
  };

  const save = async () => {
    setError(null);
    const template: PromptTemplateBody =
      version.prompt_template.type === 'completion' && messages.length === 1
        ? { ...version.prompt_template, content: [{ type: 'text', text: messages[0].text }] }
        : {
            type: 'chat',
            input_variables: [],
            messages: messages.map((m, i) => {
              const before = version.prompt_template.type === 'chat' ? version.prompt_template.messages[i] : undefined;
              return { ...(before ?? {}), role: m.role, content: [{ type: 'text', text: m.text }] };
            }),
          };
    try {
      const published = await api<PublishedTemplate>('/rest/prompt-templates', {
        body: {
          prompt_template: { prompt_name: name },
          prompt_version: {
            prompt_template: template,
            commit_message: commit.trim() || null,
            metadata: { ...(version.metadata ?? {}), model: { ...(model ?? {}), provider, name: modelName, parameters } },
          },
          release_labels: label.trim() ? [label.trim()] : [],
        },
      });
      setSaving(false);
      setCommit('');
      setLabel('');
      onPublished(published.version_number);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const setMessage = (i: number, change: Partial<Draft>) => setMessages(messages.map((m, j) => (j === i ? { ...m, ...change } : m)));

  return (
    <div className="stack" style={{ minWidth: 0 }}>
      <form
        className="stack card"
        aria-label="Try settings"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        {names.length === 0 ? <p className="muted" style={{ margin: 0 }}>This version has no input variables.</p> : null}
        {names.map((n) => (
          <label key={n}>
            <span className="mono">{n}</span>
            <textarea aria-label={`Variable ${n}`} rows={2} value={values[n] ?? ''} onChange={(e) => setValues({ ...values, [n]: e.target.value })} />
          </label>
        ))}
        <div className="row" style={{ flexWrap: 'wrap' }}>
          <label>
            Provider
            <select aria-label="Run provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
              {providerNames.map((p) => (
                <option key={p} value={p}>{p}</option>
              ))}
            </select>
          </label>
          <label className="grow">
            Model
            <input aria-label="Run model" list={modelsId} value={modelName} onChange={(e) => setModelName(e.target.value)} placeholder="gpt-4o-mini, llama3.2…" style={{ width: '100%' }} />
            <datalist id={modelsId}>
              {suggestions.models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
          </label>
          <label>
            Temperature
            <input aria-label="Temperature" type="number" min={0} max={2} step={0.1} value={temperature} onChange={(e) => setTemperature(e.target.value)} style={{ width: 90 }} />
          </label>
          <label>
            Max tokens
            <input aria-label="Max tokens" type="number" min={1} step={1} value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} style={{ width: 100 }} />
          </label>
        </div>
        <div className="stack" style={{ gap: 8 }} aria-label="Messages to send">
          {messages.map((m, i) => (
            <div key={i} className={`msg ${m.role}`}>
              <div className="msg-role">{m.role}</div>
              <textarea
                aria-label={`Try message ${i + 1}`}
                rows={Math.min(10, Math.max(2, m.text.split('\n').length + Math.floor(m.text.length / 90)))}
                value={m.text}
                style={{ width: '100%', border: 'none', borderRadius: 0, display: 'block' }}
                onChange={(e) => setMessage(i, { text: e.target.value })}
              />
            </div>
          ))}
        </div>
        <div className="row" style={{ flexWrap: 'wrap' }}>
          <button type="submit" className="primary" disabled={run.running || !modelName.trim()}>
            {run.running ? 'Running…' : `Run${edited ? ' edited' : ` v${version.version_number}`}`}
          </button>
          <button type="button" onClick={() => void render()}>
            Render v{version.version_number}
          </button>
          <button type="button" onClick={() => setSaving(!saving)} aria-expanded={saving}>
            Save as new version…
          </button>
          {edited ? (
            <>
              <span className="badge warn">edited</span>
              <button type="button" className="ghost small" onClick={() => setMessages(original)}>
                Reset
              </button>
            </>
          ) : null}
        </div>
        {saving ? (
          <div className="row" role="group" aria-label="Save as new version" style={{ flexWrap: 'wrap', alignItems: 'end' }}>
            <label className="grow">
              Commit message
              <input aria-label="New version commit message" maxLength={72} value={commit} onChange={(e) => setCommit(e.target.value)} placeholder="What changed (≤ 72 characters)" style={{ width: '100%' }} />
            </label>
            <label>
              Label (optional)
              <input aria-label="New version label" value={label} onChange={(e) => setLabel(e.target.value)} placeholder="staging" style={{ width: 140 }} />
            </label>
            <button type="button" className="primary" onClick={() => void save()}>
              Publish new version
            </button>
          </div>
        ) : null}
      </form>
      {error ? <p className="error" role="alert">{error}</p> : null}
      <TryAnswer state={run} onStop={() => stop.current?.abort()} />
      {rendered ? (
        <section className="stack" aria-label="Rendered prompt">
          {rendered.warning ? <p className="badge warn">{rendered.warning}</p> : null}
          <h3>Rendered</h3>
          <ChatView template={rendered.prompt_template} label="Rendered template" />
          {rendered.llm_kwargs ? (
            <>
              <h3>Provider request (llm_kwargs)</h3>
              <JsonView value={rendered.llm_kwargs} label="LLM kwargs" />
            </>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
