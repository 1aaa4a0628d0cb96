import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi } from '../../api/context';
import type { CreatedApiKey } from '../../api/types';
import { CopyButton } from '../../components/copy-button';

const PLACEHOLDER = '<your API key>';

type Snippet = 'env' | 'js' | 'python' | 'otel';
const TITLES: Record<Snippet, string> = { env: 'Environment', js: 'JavaScript SDK', python: 'Python SDK', otel: 'OpenTelemetry' };

/**
 * The snippets an app needs to log here, with this server's address and (once created here) a real
 * key filled in. Variable names are the SDKs' own: both PromptLayer SDKs read PROMPTLAYER_API_KEY
 * and PROMPTLAYER_BASE_URL; OTLP exporters read the OTEL_EXPORTER_OTLP_TRACES_* ones.
 */
function snippets(baseUrl: string, key: string): Record<Snippet, string> {
  return {
    env: `export PROMPTLAYER_API_KEY=${key}\nexport PROMPTLAYER_BASE_URL=${baseUrl}`,
    js: `// npm install promptlayer openai
import { PromptLayer } from "promptlayer";

// Without arguments it reads PROMPTLAYER_API_KEY and PROMPTLAYER_BASE_URL.
const promptlayer = new PromptLayer({ apiKey: "${key}", baseURL: "${baseUrl}" });
const OpenAI = promptlayer.OpenAI;
const openai = new OpenAI();

const answer = await openai.chat.completions.create({
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "Hello" }],
  pl_tags: ["my-app"],
});`,
    python: `# pip install promptlayer openai
import os
os.environ.setdefault("PROMPTLAYER_BASE_URL", "${baseUrl}")
os.environ.setdefault("PROMPTLAYER_API_KEY", "${key}")

from promptlayer import PromptLayer

promptlayer = PromptLayer()  # reads PROMPTLAYER_API_KEY and PROMPTLAYER_BASE_URL
OpenAI = promptlayer.openai.OpenAI
client = OpenAI()

answer = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[{"role": "user", "content": "Hello"}],
    pl_tags=["my-app"],
)`,
    otel: `# Any OpenTelemetry app: OTLP over HTTP (protobuf or JSON; not gRPC)
export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${baseUrl}/v1/traces
export OTEL_EXPORTER_OTLP_TRACES_HEADERS="x-api-key=${key}"
export OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf

// Or in code (Node): npm install @opentelemetry/sdk-trace-node @opentelemetry/exporter-trace-otlp-proto
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";

const exporter = new OTLPTraceExporter({ url: "${baseUrl}/v1/traces", headers: { "x-api-key": "${key}" } });
new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }).register();`,
  };
}

/** Settings → "Connect an app": both variables, ready-to-paste snippets, and a key in one click. */
export function ConnectSection({ onKeyCreated }: { onKeyCreated: () => void }) {
  const api = useApi();
  const [tab, setTab] = useState<Snippet>('env');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const baseUrl = location.origin;
  const texts = snippets(baseUrl, created?.key ?? PLACEHOLDER);

  const createKey = async () => {
    setError(null);
    try {
      const name = `app ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`;
      const res = await api<CreatedApiKey>('/api/public/v2/api-keys', { body: { name } });
      setCreated({ name: res.api_key.name, key: res.key });
      onKeyCreated();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="card stack" aria-label="Connect an app">
      <h2>Connect an app</h2>
      <p className="muted" style={{ margin: 0 }}>
        Any PromptLayer client logs here when its base URL points at this server; any OpenTelemetry app sends its traces to <code>/v1/traces</code>.
      </p>
      <dl className="kv">
        <dt>
          <code>PROMPTLAYER_BASE_URL</code>
        </dt>
        <dd className="row">
          <code data-testid="connect-base-url">{baseUrl}</code>
          <CopyButton text={baseUrl} label="Copy base URL" />
        </dd>
        <dt>
          <code>PROMPTLAYER_API_KEY</code>
        </dt>
        <dd className="row">
          {created ? (
            <>
              <code data-testid="connect-key">{created.key}</code>
              <CopyButton text={created.key} label="Copy key" />
              <span className="muted">
                new key <b>{created.name}</b>, shown only once
              </span>
            </>
          ) : (
            <>
              <span className="muted">a key from the list below, or</span>
              <button type="button" className="small primary" onClick={() => void createKey()}>
                Create a key for this app
              </button>
            </>
          )}
        </dd>
      </dl>
      {error ? <p className="error" role="alert">{error}</p> : null}
      <div className="tabs" role="tablist" aria-label="Snippet">
        {(Object.keys(TITLES) as Snippet[]).map((s) => (
          <button key={s} type="button" role="tab" aria-selected={tab === s} className={tab === s ? 'active' : ''} onClick={() => setTab(s)}>
            {TITLES[s]}
          </button>
        ))}
      </div>
      <div className="stack" role="tabpanel" aria-label={`${TITLES[tab]} snippet`} style={{ gap: 6 }}>
        <pre className="json" data-testid="connect-snippet" style={{ margin: 0 }}>{texts[tab]}</pre>
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <CopyButton text={texts[tab]} label={`Copy ${TITLES[tab]} snippet`} />
        </div>
      </div>
    </section>
  );
}
