import type { RequestItem } from '../../api/types';

/** A table row's mark when the request has a reviewer's note (hover to read it); its scores have their own column. */
export function NoteMark({ request }: { request: RequestItem }) {
  if (!request.note) return null;
  const preview = request.note.length > 300 ? `${request.note.slice(0, 300)}…` : request.note;
  return (
    <span className="badge" aria-label="Has a note" title={preview}>
      ✎ note
    </span>
  );
}
