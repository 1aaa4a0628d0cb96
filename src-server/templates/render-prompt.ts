import { isObject, type Json } from '../is-object';
import { templateFormats, type TemplateFormatId } from './index';

const formatOf = (value: unknown): TemplateFormatId => (value === 'jinja2' ? 'jinja2' : 'f-string');

function renderBlocks(content: unknown, format: TemplateFormatId, variables: Json): unknown {
  if (typeof content === 'string') return templateFormats[format].render(content, variables);
  if (!Array.isArray(content)) return content;
  // Only text is a template; images, thinking and tool blocks pass through verbatim.
  return content.map((block) =>
    isObject(block) && block.type === 'text' && typeof block.text === 'string'
      ? { ...block, text: templateFormats[format].render(block.text, variables) }
      : block,
  );
}

/** Each text of a template, with the format it is written in (for publish-time syntax checks). */
export function templateTexts(template: Json): Array<{ text: string; format: TemplateFormatId; path: Array<string | number> }> {
  const out: Array<{ text: string; format: TemplateFormatId; path: Array<string | number> }> = [];
  const collect = (content: unknown, format: TemplateFormatId, path: Array<string | number>) => {
    if (typeof content === 'string') out.push({ text: content, format, path });
    else if (Array.isArray(content)) {
      content.forEach((block, i) => {
        if (isObject(block) && block.type === 'text' && typeof block.text === 'string') out.push({ text: block.text, format, path: [...path, i, 'text'] });
      });
    }
  };
  if (template.type === 'completion') collect(template.content, formatOf(template.template_format), ['content']);
  else if (Array.isArray(template.messages)) {
    template.messages.forEach((m, i) => {
      if (isObject(m)) collect(m.content, formatOf(m.template_format), ['messages', i, 'content']);
    });
  }
  return out;
}

/** A placeholder message names a variable that holds a list of messages, spliced in its place. */
function placeholderName(message: Json): string | undefined {
  if (typeof message.name === 'string' && message.name) return message.name;
  const text = Array.isArray(message.content) ? message.content.find((b) => isObject(b) && typeof b.text === 'string') : message.content;
  const raw = isObject(text) ? String(text.text) : typeof text === 'string' ? text : '';
  return /\{\{?\s*(\w+)\s*\}?\}/.exec(raw)?.[1];
}

function spliced(value: unknown): Json[] {
  const list = Array.isArray(value) ? value : [];
  return list.filter(isObject).map((m) => ({
    ...m,
    role: typeof m.role === 'string' ? m.role : 'user',
    content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content ?? [],
  }));
}

/**
 * The template with every text rendered. Chat messages each carry their own `template_format`
 * (default f-string); a completion has one for its content.
 */
export function renderPromptTemplate(template: Json, variables: Json): Json {
  if (template.type === 'completion') {
    return { ...template, content: renderBlocks(template.content, formatOf(template.template_format), variables) };
  }
  if (!Array.isArray(template.messages)) return template;
  const messages: unknown[] = [];
  for (const message of template.messages) {
    if (!isObject(message)) continue;
    if (message.role === 'placeholder') {
      const name = placeholderName(message);
      messages.push(...(name && Object.hasOwn(variables, name) ? spliced(variables[name]) : []));
      continue;
    }
    messages.push({ ...message, content: renderBlocks(message.content, formatOf(message.template_format), variables) });
  }
  return { ...template, messages };
}
