import type { PromptTemplateBody, PromptVersion } from '../../api/types';

const blocksText = (content: { type: string; text?: string }[] | undefined) =>
  (content ?? []).map((b) => (b.type === 'text' ? (b.text ?? '') : JSON.stringify(b))).join('\n');

/** A version as reviewable text: messages in order, then the model settings; what the diff compares. */
export function versionText(v: Pick<PromptVersion, 'prompt_template' | 'metadata'>): string[] {
  const t = v.prompt_template;
  const lines: string[] = [];
  if (t.type === 'chat') {
    for (const m of t.messages) {
      lines.push(`[${m.role}]`, ...blocksText(m.content).split('\n'), '');
    }
    if (t.tools) lines.push('[tools]', ...JSON.stringify(t.tools, null, 2).split('\n'), '');
  } else {
    lines.push('[completion]', ...blocksText(t.content).split('\n'), '');
  }
  const model = v.metadata?.model;
  if (model) lines.push('[model]', `${model.provider ?? '?'} / ${model.name ?? '?'}`, ...JSON.stringify(model.parameters ?? {}, null, 2).split('\n'));
  return lines;
}

/** `{var}` (f-string) and `{{ var }}` (jinja2) names in a template, for the Try form. */
export function templateVariables(t: PromptTemplateBody): string[] {
  if (Array.isArray(t.input_variables) && t.input_variables.length) return t.input_variables;
  const text = t.type === 'chat' ? t.messages.map((m) => blocksText(m.content)).join('\n') : blocksText(t.content);
  const names = new Set<string>();
  for (const m of text.matchAll(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}|(?<!\{)\{([A-Za-z_]\w*)\}(?!\})/g)) names.add(m[1] ?? m[2]);
  return [...names];
}
