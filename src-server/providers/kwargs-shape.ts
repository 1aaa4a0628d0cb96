import { isObject, type Json } from '../is-object';

export { isObject, type Json };

/** What a kwargs builder needs: the rendered template, the model name and its parameters. */
export interface KwargsInput {
  template: Json;
  model: string;
  parameters: Json;
}

/** The text of a content list (text blocks joined), for APIs that take one prompt string. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Json => isObject(b) && b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('');
}
