import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi } from '../../api/context';
import type { PromptVersion, TemplateForUse } from '../../api/types';
import { ChatView } from '../../components/chat-view';
import { JsonView } from '../../components/json-view';
import { templateVariables } from './template-text';

/** Renders the version with values for its variables, exactly as an app fetching it would get it. */
export function PromptTry({ templateId, version }: { templateId: number; version: PromptVersion }) {
  const api = useApi();
  const names = templateVariables(version.prompt_template);
  const [values, setValues] = useState<Record<string, string>>({});
  const [result, setResult] = useState<TemplateForUse | null>(null);
  const [error, setError] = useState<string | null>(null);

  const render = async () => {
    setError(null);
    try {
      setResult(
        await api<TemplateForUse>(`/prompt-templates/${templateId}`, {
          body: { version: version.version_number, input_variables: Object.fromEntries(names.map((n) => [n, values[n] ?? ''])) },
        }),
      );
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div className="stack">
      <form
        className="stack card"
        onSubmit={(e) => {
          e.preventDefault();
          void render();
        }}
      >
        {names.length === 0 ? <p className="muted" style={{ margin: 0 }}>This version has no input variables.</p> : null}
        {names.map((n) => (
          <label key={n}>
            <span className="mono">{n}</span>
            <textarea aria-label={`Variable ${n}`} rows={2} value={values[n] ?? ''} onChange={(e) => setValues({ ...values, [n]: e.target.value })} />
          </label>
        ))}
        <div>
          <button type="submit" className="primary">
            Render v{version.version_number}
          </button>
        </div>
      </form>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {result ? (
        <section className="stack" aria-label="Rendered prompt">
          {result.warning ? <p className="badge warn">{result.warning}</p> : null}
          <h3>Rendered</h3>
          <ChatView template={result.prompt_template} label="Rendered template" />
          {result.llm_kwargs ? (
            <>
              <h3>Provider request (llm_kwargs)</h3>
              <JsonView value={result.llm_kwargs} label="LLM kwargs" />
            </>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
