import { useEffect, useMemo, useState } from 'react';
import { fmtInt } from '../../components/format';
import { setParams, useLocation } from '../../router';
import { apiQueryFromUrl, filterSignature } from './filter-params';
import { RequestDetail } from './request-detail';
import { RequestFilters } from './request-filters';
import { RequestTable } from './request-table';
import { useRequestPages } from './use-request-pages';
import { RequestsEmpty } from './requests-empty';
import { SelectionBar } from './selection-bar';
import { sortFromUrl } from './sort-header';
import { ReviewTheseButton } from '../review/review-filters';
import { ExportMenu } from './export-menu';
import { DeleteMatching } from './delete-requests';

/** The server stops counting filtered matches here (a count over a million rows would cost more than the page). */
const COUNT_CAP = 1000;

export function RequestsPage() {
  const { params } = useLocation();
  const signature = filterSignature(params);
  const sort = sortFromUrl(params);
  const query = useMemo(() => ({ ...apiQueryFromUrl(new URLSearchParams(signature)), sort: sort.sort, order: sort.order }), [signature, sort.sort, sort.order]);
  const pages = useRequestPages(`${signature}|${sort.sort}|${sort.order}`, query);
  const openId = params.get('request') ? Number(params.get('request')) : null;
  const [cursor, setCursor] = useState(0);
  const [checked, setChecked] = useState<Set<number>>(new Set());

  useEffect(() => setCursor(0), [signature, sort.sort, sort.order]);

  const open = (id: number | null) => setParams({ request: id === null ? null : String(id) });
  const toggle = (id: number) =>
    setChecked((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const filtered = signature !== '';
  const empty = !pages.loading && !pages.error && pages.items.length === 0;

  return (
    <div className="page">
      <div className="page-head">
        <h1>Requests</h1>
        <span className="muted" data-testid="request-count" aria-live="polite">
          {pages.loading && pages.items.length === 0 ? 'Loading…' : `${fmtInt(pages.total)}${filtered && pages.total >= COUNT_CAP ? '+' : ''} ${filtered ? 'matching' : 'logged'}`}
        </span>
        <span className="spacer" />
        <SelectionBar checked={checked} onClear={() => setChecked(new Set())} onDeleted={() => (setChecked(new Set()), pages.reload())} />
        <ReviewTheseButton params={params} />
        <ExportMenu query={query} />
        <DeleteMatching query={query} total={pages.total} filtered={filtered} capped={filtered && pages.total >= COUNT_CAP} onDeleted={() => (setChecked(new Set()), pages.reload())} />
        <button type="button" onClick={pages.reload} title="Reload">
          ↻ Refresh
        </button>
      </div>
      <RequestFilters params={params} />
      {pages.error ? <p className="error" role="alert" style={{ padding: '8px 20px' }}>{pages.error}</p> : null}
      {empty && !filtered ? (
        <RequestsEmpty />
      ) : (
        <div className={`explorer ${openId !== null ? 'with-detail' : ''}`}>
          <div className="vt" data-generation={pages.generation}>
            {empty ? (
              <div className="empty">
                <h2>No requests match these filters</h2>
                <p>Loosen a filter or clear them all.</p>
              </div>
            ) : (
              <RequestTable pages={pages} sort={sort} filteredTags={params.getAll('tag')} openId={openId} cursor={cursor} checked={checked} onCursor={setCursor} onOpen={open} onToggle={toggle} />
            )}
            <div className="vt-foot">
              <span>
                {fmtInt(pages.items.length)} loaded{pages.hasMore ? ' · scroll for more' : ''}
              </span>
              <span className="spacer" />
              <span>
                <kbd>↑</kbd> <kbd>↓</kbd> move · <kbd>Enter</kbd> open · <kbd>x</kbd> select · <kbd>Esc</kbd> close
              </span>
            </div>
          </div>
          {openId !== null ? <RequestDetail id={openId} highlight={params.get('q')} filteredTags={params.getAll('tag')} onClose={() => open(null)} onChanged={pages.replace} /> : null}
        </div>
      )}
    </div>
  );
}
