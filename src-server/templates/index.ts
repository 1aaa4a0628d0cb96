import { fString } from './f-string';
import { jinja2 } from './jinja2';

export type TemplateFormatId = 'f-string' | 'jinja2';

/** One template language: how a stored text becomes the text sent to a model. */
export interface TemplateFormatEngine {
  id: TemplateFormatId;
  description: string;
  /** A syntax problem that would make every render fail, or null. Checked at publish. */
  check(text: string): string | null;
  /** Throws TemplateRenderError when the text cannot be rendered with these variables. */
  render(text: string, variables: Record<string, unknown>): string;
}

export const templateFormats: Record<TemplateFormatId, TemplateFormatEngine> = {
  'f-string': fString,
  jinja2,
};
