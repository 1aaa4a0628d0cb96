import type { PlaygroundAnswer } from '../../api/types';
import { fmtCost, fmtInt, fmtMs } from '../../components/format';
import { navigate } from '../../router';

export interface TryState {
  running: boolean;
  /** The answer so far (streamed deltas), then the whole answer. */
  text: string;
  result: PlaygroundAnswer | null;
  error: string | null;
  /** The logged ERROR request of a failed call, when the server names one. */
  failedRequestId: number | null;
}

export const IDLE: TryState = { running: false, text: '', result: null, error: null, failedRequestId: null };

const requestLink = (id: number, text: string) => (
  <a
    href={`/requests?request=${id}`}
    onClick={(e) => {
      e.preventDefault();
      navigate(`/requests?request=${id}`);
    }}
  >
    {text}
  </a>
);

/** The model's answer as it streams in, then what the call cost and where it was logged. */
export function TryAnswer({ state, onStop }: { state: TryState; onStop: () => void }) {
  if (!state.running && !state.text && !state.error) return null;
  const r = state.result;
  return (
    <section className="stack" aria-label="Answer" aria-busy={state.running}>
      <div className="msg assistant">
        <div className="msg-role" style={{ alignItems: 'center' }}>
          assistant
          <span className="grow" />
          {state.running ? (
            <>
              <span className="muted" role="status" style={{ textTransform: 'none', fontWeight: 400 }}>
                Streaming…
              </span>
              <button type="button" className="ghost small" onClick={onStop}>
                Stop
              </button>
            </>
          ) : null}
        </div>
        <div className="msg-body" data-testid="answer-text">
          {state.text || (state.running ? <span className="muted">Waiting for the first token…</span> : <span className="muted">(no text)</span>)}
        </div>
      </div>
      {r ? (
        <p className="row muted" data-testid="run-stats" style={{ margin: 0, gap: 14, flexWrap: 'wrap' }}>
          <span>
            <b>{fmtInt(r.input_tokens)}</b> in · <b>{fmtInt(r.output_tokens)}</b> out tokens
          </span>
          <span>
            cost <b>{fmtCost(r.price)}</b>
          </span>
          <span>
            latency <b>{fmtMs(r.latency_ms)}</b>
          </span>
          {requestLink(r.request_id, `Logged as request #${r.request_id} →`)}
        </p>
      ) : null}
      {state.error ? (
        <p className="error" role="alert" style={{ margin: 0 }}>
          {state.error} {state.failedRequestId ? requestLink(state.failedRequestId, `(logged as request #${state.failedRequestId})`) : null}
        </p>
      ) : null}
    </section>
  );
}
