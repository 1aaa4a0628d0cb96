import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';
import CodeMirror from '@uiw/react-codemirror';
import type { z } from 'zod';
import type { codeExecution } from '../../../../src-server/eval/columns/code-execution';
import { Choice, FieldError, Hint, NumberField, type FormProps } from './fields';

type Config = z.output<typeof codeExecution.config>;

const STARTERS: Record<Config['language'], string> = {
  JAVASCRIPT: '// `data` holds the row: every column to the left, by name.\nreturn data;\n',
  PYTHON: '# `data` holds the row: every column to the left, by name.\nreturn data\n',
};

/** CODE_EXECUTION: sandboxed code over the row's `data`, with its shape shown. */
export function CodeExecutionForm({ config, onChange, columns, errors }: FormProps<Config>) {
  const language = config.language ?? 'JAVASCRIPT';
  const shape = `data = {\n${columns.map((c) => `  ${JSON.stringify(c)}: …`).join(',\n')}\n}`;
  return (
    <div className="stack">
      <div className="builder-grid">
        <Choice label="Language" value={language} options={[['JAVASCRIPT', 'JavaScript'], ['PYTHON', 'Python']]}
          onChange={(next) => onChange({ ...config, language: next, code: !config.code || config.code === STARTERS[language] ? STARTERS[next] : config.code })} />
        <NumberField label="Time limit (ms)" value={config.timeout_ms} min={1} max={30_000} placeholder="default" onChange={(timeout_ms) => onChange({ ...config, timeout_ms })} />
        <NumberField label="Memory (MB)" value={config.memory_mb} min={1} max={256} placeholder="default" onChange={(memory_mb) => onChange({ ...config, memory_mb })} />
      </div>
      <div className="builder-code">
        <div aria-label="Code" role="group">
          <CodeMirror value={config.code ?? STARTERS[language]} height="220px" extensions={[language === 'PYTHON' ? python() : javascript()]}
            onChange={(code) => onChange({ ...config, language, code })} basicSetup={{ foldGutter: false }} />
        </div>
        <div>
          <Hint>The row your code receives</Hint>
          <pre className="builder-preview" aria-label="Row shape">{shape}</pre>
        </div>
      </div>
      <Hint>Return the cell's value (any JSON). `false` marks the row failed. It runs in a sandbox without network or files.</Hint>
      <FieldError errors={errors} at="code" />
    </div>
  );
}
