import { CopyButton } from '../../components/copy-button';

/** What a new user needs: point an existing PromptLayer client here, or send one request by hand. */
export function RequestsEmpty() {
  const base = location.origin;
  const sdk = `export PROMPTLAYER_BASE_URL=${base}
export PROMPTLAYER_API_KEY=<your key — Settings → API keys>

# then, in your app (npm i promptlayer)
import { PromptLayer } from "promptlayer";
const pl = new PromptLayer();   // reads both variables
const OpenAI = pl.OpenAI;      // every call is logged here`;
  const curl = `curl -X POST ${base}/log-request \\
  -H "X-API-KEY: $PROMPTLAYER_API_KEY" -H "content-type: application/json" \\
  -d '{"provider":"openai","model":"gpt-4o-mini",
       "input":{"type":"chat","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]},
       "output":{"type":"chat","messages":[{"role":"assistant","content":[{"type":"text","text":"Hello!"}]}]},
       "request_start_time":"2026-01-01T10:00:00Z","request_end_time":"2026-01-01T10:00:01Z"}'`;
  return (
    <div className="page-body">
      <div className="empty" style={{ maxWidth: 720 }}>
        <h2>No requests logged yet</h2>
        <p>
          promptledger speaks PromptLayer's API. Point the PromptLayer SDK (or any client) at this server and every LLM call shows up
          here, searchable and filterable.
        </p>
        <pre>{sdk}</pre>
        <div className="row">
          <CopyButton text={sdk} label="Copy SDK setup" />
        </div>
        <p>Or log one request by hand:</p>
        <pre>{curl}</pre>
        <CopyButton text={curl} label="Copy curl command" />
      </div>
    </div>
  );
}
