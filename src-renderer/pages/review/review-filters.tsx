import type { Query } from '../../api/client';
import { navigate, setParams } from '../../router';

/** The explorer's review filters, under the same names in the page URL and the API. */
export const REVIEW_FILTER_KEYS = ['scored', 'has_note', 'score_name'];

export function reviewQuery(params: URLSearchParams): Query {
  return Object.fromEntries(REVIEW_FILTER_KEYS.map((key) => [key, params.get(key) ?? undefined]));
}

/** Scored or not, with a note or not, and by score name: for the requests page's filter bar. */
export function ReviewFilters({ params }: { params: URLSearchParams }) {
  const select = (key: string) => ({
    value: params.get(key) ?? '',
    onChange: (e: { target: { value: string } }) => setParams({ [key]: e.target.value || null, request: null }),
  });
  return (
    <>
      <label>
        <span className="sr-only">Scored</span>
        <select aria-label="Scored" {...select('scored')}>
          <option value="">Scored or not</option>
          <option value="true">Scored</option>
          <option value="false">Not scored</option>
        </select>
      </label>
      <label>
        <span className="sr-only">Note</span>
        <select aria-label="Note" {...select('has_note')}>
          <option value="">Note or not</option>
          <option value="true">With a note</option>
          <option value="false">Without a note</option>
        </select>
      </label>
      <label>
        <span className="sr-only">Score name</span>
        <input aria-label="Score name filter" placeholder="score name" style={{ width: 110 }} {...select('score_name')} />
      </label>
    </>
  );
}

/** Opens the review queue on the requests page's tags and model (and its scored filter, else "not yet scored"). */
export function ReviewTheseButton({ params }: { params: URLSearchParams }) {
  const open = () => {
    const queue = new URLSearchParams();
    for (const tag of params.getAll('tag')) queue.append('tag', tag);
    if (params.get('model')) queue.set('model', params.get('model')!);
    if (params.get('scored')) queue.set('scored', params.get('scored')!);
    if (params.get('score_name')) queue.set('name', params.get('score_name')!);
    navigate(`/review${queue.size ? `?${queue}` : ''}`);
  };
  return (
    <button type="button" onClick={open} title="Go through these requests one by one and score them">
      ★ Review these
    </button>
  );
}
