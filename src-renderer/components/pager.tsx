/** Previous / next buttons for a paged list; renders nothing when everything fits on one page. */
export function Pager({ page, pages, onPage }: { page: number; pages: number | undefined; onPage: (page: number) => void }) {
  if (!pages || pages <= 1) return null;
  return (
    <div className="row">
      <button type="button" className="small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ← Previous
      </button>
      <span className="muted">
        Page {page} of {pages}
      </span>
      <button type="button" className="small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next →
      </button>
    </div>
  );
}
