import { navigate } from '../../router';
import { PAGES } from '../index';

/** An address no page answers to (a mistyped or stale link): say so instead of silently redirecting. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <div className="page">
      <div className="page-body">
        <div className="empty" role="alert">
          <h2>Page not found</h2>
          <p>
            Nothing lives at <code>{path}</code>. The link may be mistyped or come from another version of promptledger.
          </p>
          <div className="row" style={{ justifyContent: 'center' }}>
            {PAGES.map((p) => (
              <button key={p.path} type="button" className={p === PAGES[0] ? 'primary' : undefined} onClick={() => navigate(p.path)}>
                {p.title}
              </button>
            ))}
          </div>
        </div>
      </div>
    </div>
  );
}
