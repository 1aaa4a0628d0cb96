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
            Nothing lives at <code>{path}</code>: the link may be mistyped or out of date. Every page is in the sidebar.
          </p>
          <div className="row" style={{ justifyContent: 'center' }}>
            <button type="button" onClick={() => history.back()}>
              ← Back
            </button>
            <button type="button" className="primary" onClick={() => navigate(PAGES[0].path)}>
              Go to {PAGES[0].title}
            </button>
          </div>
        </div>
      </div>
    </div>
  );
}
