import { useEffect } from 'react';
import type { z } from 'zod';
import { useLoad } from '../../../api/context';
import type { Page, PromptListItem, PromptTemplateBody, PromptVersion } from '../../../api/types';
import type { promptTemplate } from '../../../../src-server/eval/columns/prompt-template';
import { templateVariables, versionText } from '../../prompts/template-text';
import { ColumnSelect, EngineFields, FieldError, Hint, type FormProps } from './fields';

type Config = z.output<typeof promptTemplate.config>;
type Message = { role: 'system' | 'user' | 'assistant'; text: string };

const ROLES: Message['role'][] = ['system', 'user', 'assistant'];

/** The inline chat template as the editor holds it: role + one text block per message. */
function messagesOf(config: Partial<Config>): Message[] {
  const t = config.inline_template?.prompt_template as PromptTemplateBody | undefined;
  if (!t || t.type !== 'chat') return [{ role: 'user', text: '' }];
  return t.messages.map((m) => ({
    role: (ROLES as string[]).includes(m.role) ? (m.role as Message['role']) : 'user',
    text: (m.content ?? []).map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('\n'),
  }));
}

function inlineTemplate(messages: Message[]): NonNullable<Config['inline_template']> {
  const body = { type: 'chat' as const, messages: messages.map((m) => ({ role: m.role, content: [{ type: 'text', text: m.text }] })), input_variables: [] as string[] };
  body.input_variables = templateVariables(body as PromptTemplateBody);
  return { prompt_template: body };
}

function useVersions(name: string | undefined) {
  return useLoad(
    (api, signal) => (name ? api<Page<PromptVersion>>(`/api/public/v2/prompt-templates/${encodeURIComponent(name)}/versions`, { signal, query: { per_page: 100 } }) : Promise.resolve(null)),
    [name],
  );
}

/** PROMPT_TEMPLATE: a registry prompt (label or version) or an inline chat, its variables mapped to columns, and a model. */
export function PromptTemplateForm({ config, onChange, columns, errors }: FormProps<Config>) {
  const source = config.inline_template ? 'inline' : 'registry';
  const prompts = useLoad((api, signal) => api<Page<PromptListItem>>('/prompt-templates', { signal, query: { per_page: 100 } }), []);
  const versions = useVersions(config.template?.name);
  const items = versions.data?.items ?? [];
  const labels = [...new Set(items.flatMap((v) => v.release_labels))];
  const chosen = config.template?.label
    ? items.find((v) => v.release_labels.includes(config.template!.label!))
    : config.template?.version_number
      ? items.find((v) => v.version_number === config.template!.version_number)
      : items[0];
  const messages = messagesOf(config);
  const variables = source === 'inline'
    ? templateVariables(inlineTemplate(messages).prompt_template as PromptTemplateBody)
    : chosen ? templateVariables(chosen.prompt_template) : [];
  const mappings = config.prompt_template_variable_mappings ?? {};
  const known = source === 'inline' || Boolean(chosen);

  // Variables named like a column are mapped to it; mappings of variables the template lost go.
  // Only when the template, its variables or the columns change, so a mapping the user clears stays
  // cleared. The template's identity is in the key because a label picked from a render before
  // this effect's update replaces the config it set: same variables, but the mapping comes back.
  const ref = config.template?.label ? `label:${config.template.label}` : config.template?.version_number ? `version:${config.template.version_number}` : '';
  const mappingKey = [source, config.template?.name ?? '', ref, ...variables, '\u0001', ...columns].join('\u0000');
  useEffect(() => {
    if (!known) return;
    // An update of the current configuration: a change the user made since this render stays.
    onChange((current) => {
      const had = current.prompt_template_variable_mappings ?? {};
      const next: Record<string, string> = {};
      for (const v of variables) {
        const mapped = had[v] ?? (columns.includes(v) ? v : undefined);
        if (mapped) next[v] = mapped;
      }
      return JSON.stringify(next) === JSON.stringify(had) ? current : { ...current, prompt_template_variable_mappings: next };
    });
  }, [mappingKey, known]);

  const setMessages = (next: Message[]) => onChange({ ...config, template: undefined, inline_template: inlineTemplate(next) });

  return (
    <div className="stack">
      <div className="tabs" role="tablist" aria-label="Prompt source">
        <button type="button" role="tab" aria-selected={source === 'registry'} className={source === 'registry' ? 'active' : ''}
          onClick={() => onChange({ ...config, inline_template: undefined, template: config.template ?? undefined })}>
          From the registry
        </button>
        <button type="button" role="tab" aria-selected={source === 'inline'} className={source === 'inline' ? 'active' : ''} onClick={() => setMessages(messages)}>
          Inline
        </button>
      </div>
      {source === 'registry' ? (
        <>
          <div className="builder-grid">
            <label>
              Prompt
              <select aria-label="Prompt" value={config.template?.name ?? ''} onChange={(e) => onChange({ ...config, template: e.target.value ? { name: e.target.value } : undefined })}>
                <option value="">Choose a prompt…</option>
                {(prompts.data?.items ?? []).map((p) => (
                  <option key={p.id} value={p.prompt_name}>{p.prompt_name}</option>
                ))}
              </select>
              <FieldError errors={errors} at="template" />
            </label>
            <label>
              Label or version
              <select aria-label="Label or version" value={ref} disabled={!config.template?.name}
                onChange={(e) => {
                  const [kind, v] = e.target.value.split(':');
                  onChange({ ...config, template: { name: config.template!.name, ...(kind === 'label' ? { label: v } : kind === 'version' ? { version_number: Number(v) } : {}) } });
                }}>
                <option value="">Production, else the latest</option>
                {labels.map((l) => (
                  <option key={l} value={`label:${l}`}>@ {l} (now v{items.find((v) => v.release_labels.includes(l))?.version_number})</option>
                ))}
                {items.map((v) => (
                  <option key={v.id} value={`version:${v.version_number}`}>v{v.version_number}{v.commit_message ? ` — ${v.commit_message}` : ''}</option>
                ))}
              </select>
            </label>
          </div>
          {chosen ? (
            <pre className="builder-preview" aria-label="Prompt text">{versionText(chosen).join('\n')}</pre>
          ) : config.template?.name && !versions.loading ? (
            <p className="error">No such version of {config.template.name}.</p>
          ) : null}
        </>
      ) : (
        <fieldset className="builder-fieldset" aria-label="Messages">
          <legend>Messages</legend>
          {messages.map((m, i) => (
            <div key={i} className="builder-message">
              <select aria-label={`Message ${i + 1} role`} value={m.role} onChange={(e) => setMessages(messages.map((x, j) => (j === i ? { ...x, role: e.target.value as Message['role'] } : x)))}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>{r}</option>
                ))}
              </select>
              <textarea aria-label={`Message ${i + 1} text`} rows={3} value={m.text} placeholder={i === 0 ? 'Answer the customer: {question}' : ''}
                onChange={(e) => setMessages(messages.map((x, j) => (j === i ? { ...x, text: e.target.value } : x)))} />
              <button type="button" className="ghost small" aria-label={`Remove message ${i + 1}`} disabled={messages.length === 1} onClick={() => setMessages(messages.filter((_, j) => j !== i))}>
                ✕
              </button>
            </div>
          ))}
          <div className="row">
            <button type="button" className="small" onClick={() => setMessages([...messages, { role: messages[messages.length - 1]?.role === 'user' ? 'assistant' : 'user', text: '' }])}>
              + Add message
            </button>
            <Hint>Write {'{variable}'} where a column's value goes.</Hint>
          </div>
          <FieldError errors={errors} at="inline_template" />
        </fieldset>
      )}
      <fieldset className="builder-fieldset" aria-label="Input variables">
        <legend>Input variables</legend>
        {variables.length === 0 ? <Hint>{known ? 'This template has no input variables.' : 'Choose a prompt to see its variables.'}</Hint> : null}
        {variables.map((v) => (
          <div key={v} className="builder-mapping">
            <code>{`{${v}}`}</code>
            <span className="muted">←</span>
            <ColumnSelect label={`Variable ${v}`} value={mappings[v]} columns={columns}
              onChange={(c) => {
                const next = { ...mappings };
                if (c) next[v] = c;
                else delete next[v];
                onChange({ ...config, prompt_template_variable_mappings: next });
              }} />
            {!mappings[v] ? <span className="badge warn">not mapped: renders empty</span> : null}
          </div>
        ))}
        <FieldError errors={errors} at="prompt_template_variable_mappings" />
      </fieldset>
      <EngineFields value={config.engine} errors={errors}
        inherit={source === 'registry' ? `the prompt's model${chosen?.metadata?.model ? ` (${chosen.metadata.model.provider ?? '?'} / ${chosen.metadata.model.name ?? '?'})` : ''}` : undefined}
        onChange={(engine) => onChange({ ...config, engine: engine as Config['engine'] })} />
    </div>
  );
}
