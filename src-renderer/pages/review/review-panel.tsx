import { useEffect, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi } from '../../api/context';
import type { RequestItem } from '../../api/types';

/** API.md §7: notes up to 10,000 characters, scores 0–100. */
const MAX_NOTE = 10_000;

/**
 * A request's human review: its named scores (add, change, remove) and its note, saved with
 * `PATCH /api/public/v2/requests/{id}`. `onSaved` gets the record as the server answered it.
 */
export function ReviewPanel({ request, onSaved }: { request: RequestItem; onSaved: (r: RequestItem) => void }) {
  const api = useApi();
  const [note, setNote] = useState(request.note ?? '');
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => setNote(request.note ?? ''), [request.id, request.note]);
  useEffect(() => {
    setSaved(false);
    setError(null);
  }, [request.id]);

  const save = async (body: { note?: string | null; scores?: Record<string, number | null> }) => {
    setError(null);
    setSaved(false);
    try {
      onSaved(await api<RequestItem>(`/api/public/v2/requests/${request.id}`, { method: 'PATCH', body }));
      setSaved(true);
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };

  const addScore = async () => {
    const score = Number(value);
    const scoreName = name.trim() || 'default';
    if (value.trim() === '' || !Number.isInteger(score) || score < 0 || score > 100) {
      setError('A score is a whole number from 0 to 100.');
      return;
    }
    if (await save({ scores: { [scoreName]: score } })) {
      setName('');
      setValue('');
    }
  };

  const noteChanged = note !== (request.note ?? '');
  return (
    <section className="card stack" aria-label="Review">
      <h3 style={{ margin: 0 }}>Review</h3>
      <div className="row" aria-label="Scores">
        {Object.entries(request.scores).map(([scoreName, score]) => (
          <span key={scoreName} className="badge accent">
            {scoreName}: {score}
            <button type="button" className="ghost small" aria-label={`Remove score ${scoreName}`} title="Remove this score" onClick={() => void save({ scores: { [scoreName]: null } })}>
              ✕
            </button>
          </span>
        ))}
        {Object.keys(request.scores).length === 0 ? <span className="muted">Not scored yet.</span> : null}
      </div>
      <form
        className="row"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void addScore();
        }}
      >
        <input aria-label="Score name" placeholder="score name (default)" value={name} maxLength={255} onChange={(e) => setName(e.target.value)} style={{ width: 170 }} />
        <input aria-label="Score value" type="number" min={0} max={100} step={1} placeholder="0–100" value={value} onChange={(e) => setValue(e.target.value)} style={{ width: 80 }} />
        <button type="submit">Set score</button>
      </form>
      <label>
        Note
        <textarea aria-label="Note" rows={3} maxLength={MAX_NOTE} value={note} placeholder="What is right or wrong with this answer?" onChange={(e) => setNote(e.target.value)} />
      </label>
      <div className="row">
        <button type="button" className="primary" disabled={!noteChanged} onClick={() => void save({ note: note.trim() === '' ? null : note })}>
          Save note
        </button>
        {note.length > MAX_NOTE * 0.9 ? <span className="muted">{note.length.toLocaleString()} / {MAX_NOTE.toLocaleString()}</span> : null}
        {saved ? <span className="badge ok" role="status">Saved</span> : null}
      </div>
      {error ? <p className="error" role="alert">{error}</p> : null}
    </section>
  );
}
