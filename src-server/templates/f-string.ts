import type { TemplateFormatEngine } from './index';

/** A variable's text: strings as they are, anything else as JSON (numbers, lists, objects). */
export function variableText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

// `{name}`, optionally with Python's `!conv` / `:spec` suffix (accepted, not applied), as
// PromptLayer's f-string formatter and the SDK's local renderer read it. `{{` and `}}` are literal
// braces; anything else (a lone brace, `{ not a name }`) is kept as written rather than failing.
const TOKEN = /\{\{|\}\}|\{(\w+)(?:![rsa])?(?::[^{}]*)?\}/g;

export const fString: TemplateFormatEngine = {
  id: 'f-string',
  description: 'Python-style `{variable}`; `{{` and `}}` are literal braces; a missing variable renders as "".',
  check: () => null,
  render(text, variables) {
    return text.replace(TOKEN, (token, name: string | undefined) => {
      if (token === '{{') return '{';
      if (token === '}}') return '}';
      return Object.hasOwn(variables, name!) ? variableText(variables[name!]) : '';
    });
  },
};
