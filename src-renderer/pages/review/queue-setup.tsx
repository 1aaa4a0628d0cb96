import { useEffect, useState } from 'react';
import { setParams } from '../../router';

/** The queue's filters in words, for its empty state: "tag prod, model gpt-4o, not yet scored". */
export function queueFilterText(params: URLSearchParams): string {
  const parts = [
    ...params.getAll('tag').map((t) => `tag “${t}”`),
    ...(params.get('model') ? [`model “${params.get('model')}”`] : []),
  ];
  const scored = params.get('scored') ?? 'false';
  if (scored === 'false') parts.push('not yet scored');
  if (scored === 'true') parts.push('already scored');
  return parts.join(', ');
}

/** Which requests the queue holds and the score name the keys give; all of it lives in the URL. */
export function QueueSetup({ params, scoreName }: { params: URLSearchParams; scoreName: string }) {
  const [tags, setTags] = useState(params.getAll('tag').join(', '));
  const [model, setModel] = useState(params.get('model') ?? '');
  const [name, setName] = useState(scoreName === 'default' ? '' : scoreName);
  useEffect(() => setTags(params.getAll('tag').join(', ')), [params.getAll('tag').join(',')]);

  const apply = () =>
    setParams({
      tag: tags.split(',').map((t) => t.trim()).filter(Boolean),
      model: model.trim() || null,
      name: name.trim() || null,
    });
  return (
    <form
      className="filters labelled"
      aria-label="Queue filters"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <label>
        <span className="inline-label">Tags</span>
        <input aria-label="Queue tags" placeholder="any, or a, b" value={tags} onChange={(e) => setTags(e.target.value)} style={{ width: 180 }} />
      </label>
      <label>
        <span className="inline-label">Model</span>
        <input aria-label="Queue model" placeholder="any model" value={model} onChange={(e) => setModel(e.target.value)} style={{ width: 140 }} />
      </label>
      <label>
        <span className="inline-label">Show</span>
        <select aria-label="Which requests" value={params.get('scored') ?? 'false'} onChange={(e) => setParams({ scored: e.target.value === 'false' ? null : e.target.value })}>
          <option value="false">Not yet scored</option>
          <option value="true">Already scored</option>
          <option value="any">Scored or not</option>
        </select>
      </label>
      <label>
        <span className="inline-label">Score name</span>
        <input aria-label="Queue score name" placeholder="default" value={name} maxLength={255} onChange={(e) => setName(e.target.value)} style={{ width: 160 }} />
      </label>
      <button type="submit">Apply</button>
      <span className="muted">
        Keys: <kbd>1</kbd>–<kbd>5</kbd> score 20–100, <kbd>0</kbd> scores 0 · <kbd>n</kbd>/<kbd>→</kbd> next · <kbd>s</kbd> skip · <kbd>p</kbd>/<kbd>←</kbd> back · <kbd>e</kbd> note
      </span>
    </form>
  );
}
