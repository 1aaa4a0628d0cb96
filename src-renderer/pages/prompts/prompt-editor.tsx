import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi } from '../../api/context';
import type { ChatRole, PromptTemplateBody, PromptVersion, PublishedTemplate, TemplateFormat, TemplateMessage } from '../../api/types';
import { Modal } from '../../components/modal';

const ROLES = ['system', 'user', 'assistant', 'developer', 'tool', 'placeholder'];

interface Props {
  title: string;
  /** The template name when publishing a new version of an existing prompt. */
  name?: string;
  base?: PromptVersion;
  onClose: () => void;
  onPublished: (templateId: number, version: number) => void;
}

const textOf = (m: TemplateMessage) => m.content.map((b) => b.text ?? '').join('');

/** Publishes a version: a new prompt, or the next version of one, starting from the version on screen. */
export function PromptEditor({ title, name: fixedName, base, onClose, onPublished }: Props) {
  const api = useApi();
  const t = base?.prompt_template;
  const [name, setName] = useState(fixedName ?? '');
  const [kind, setKind] = useState<'chat' | 'completion'>(t?.type ?? 'chat');
  const [messages, setMessages] = useState<{ role: ChatRole; text: string }[]>(
    t?.type === 'chat' ? t.messages.map((m) => ({ role: m.role, text: textOf(m) })) : [
      { role: 'system', text: 'You are a helpful assistant.' },
      { role: 'user', text: '{question}' },
    ],
  );
  const [completion, setCompletion] = useState(t?.type === 'completion' ? t.content.map((b) => b.text ?? '').join('') : '');
  const [format, setFormat] = useState<TemplateFormat>((t?.template_format as TemplateFormat | undefined) ?? 'f-string');
  const model = base?.metadata?.model;
  const [provider, setProvider] = useState(model?.provider ?? 'openai');
  const [modelName, setModelName] = useState(model?.name ?? 'gpt-4o-mini');
  const [params, setParams] = useState(JSON.stringify(model?.parameters ?? { temperature: 0.7 }, null, 2));
  const [commit, setCommit] = useState('');
  const [labels, setLabels] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const publish = async () => {
    setError(null);
    let parameters: unknown;
    try {
      parameters = JSON.parse(params || '{}');
    } catch {
      setError('Model parameters must be a JSON object.');
      return;
    }
    const template: PromptTemplateBody =
      kind === 'chat'
        ? { type: 'chat', messages: messages.map((m) => ({ role: m.role, content: [{ type: 'text', text: m.text }], template_format: format })), input_variables: [] }
        : { type: 'completion', content: [{ type: 'text', text: completion }], template_format: format, input_variables: [] };
    setBusy(true);
    try {
      const res = await api<PublishedTemplate>('/rest/prompt-templates', {
        body: {
          prompt_template: { prompt_name: name.trim() },
          prompt_version: {
            prompt_template: template,
            commit_message: commit.trim() || null,
            metadata: { ...(base?.metadata ?? {}), model: { provider, name: modelName, parameters } },
          },
          release_labels: labels.split(',').map((l) => l.trim()).filter(Boolean),
        },
      });
      onPublished(res.id, res.version_number);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <Modal title={title} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void publish();
        }}
      >
        {fixedName ? null : (
          <label>
            Name
            <input aria-label="Prompt name" value={name} onChange={(e) => setName(e.target.value)} placeholder="support-answer" autoFocus />
          </label>
        )}
        <div className="row">
          <label>
            Type
            <select aria-label="Template type" value={kind} onChange={(e) => setKind(e.target.value as 'chat' | 'completion')}>
              <option value="chat">Chat</option>
              <option value="completion">Completion</option>
            </select>
          </label>
          <label>
            Variables
            <select aria-label="Template format" value={format} onChange={(e) => setFormat(e.target.value as TemplateFormat)}>
              <option value="f-string">f-string {'{var}'}</option>
              <option value="jinja2">jinja2 {'{{ var }}'}</option>
            </select>
          </label>
          <label>
            Provider
            <input aria-label="Provider" value={provider} onChange={(e) => setProvider(e.target.value)} style={{ width: 110 }} />
          </label>
          <label className="grow">
            Model
            <input aria-label="Model" value={modelName} onChange={(e) => setModelName(e.target.value)} />
          </label>
        </div>
        {kind === 'chat' ? (
          <div className="stack" style={{ gap: 8 }}>
            {messages.map((m, i) => (
              <div key={i} className="msg">
                <div className="msg-role" style={{ alignItems: 'center' }}>
                  <select aria-label={`Role of message ${i + 1}`} value={m.role} onChange={(e) => setMessages(messages.map((x, j) => (j === i ? { ...x, role: e.target.value as ChatRole } : x)))}>
                    {ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                  <span className="grow" />
                  <button type="button" className="ghost small" aria-label={`Remove message ${i + 1}`} onClick={() => setMessages(messages.filter((_, j) => j !== i))}>
                    ✕
                  </button>
                </div>
                <textarea
                  aria-label={`Message ${i + 1}`}
                  rows={Math.min(10, Math.max(2, m.text.split('\n').length))}
                  value={m.text}
                  style={{ width: '100%', border: 'none', borderRadius: 0 }}
                  onChange={(e) => setMessages(messages.map((x, j) => (j === i ? { ...x, text: e.target.value } : x)))}
                />
              </div>
            ))}
            <button type="button" className="small" onClick={() => setMessages([...messages, { role: messages.at(-1)?.role === 'user' ? 'assistant' : 'user', text: '' }])}>
              + Message
            </button>
          </div>
        ) : (
          <label>
            Prompt
            <textarea aria-label="Completion prompt" rows={8} value={completion} onChange={(e) => setCompletion(e.target.value)} />
          </label>
        )}
        <label>
          Model parameters (JSON)
          <textarea aria-label="Model parameters" rows={3} value={params} onChange={(e) => setParams(e.target.value)} />
        </label>
        <div className="row">
          <label className="grow">
            Commit message
            <input aria-label="Commit message" maxLength={72} value={commit} onChange={(e) => setCommit(e.target.value)} placeholder="What changed (≤ 72 characters)" />
          </label>
          <label>
            Release labels
            <input aria-label="Release labels" value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="production, staging" />
          </label>
        </div>
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || !name.trim()}>
            {busy ? 'Publishing…' : 'Publish version'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
