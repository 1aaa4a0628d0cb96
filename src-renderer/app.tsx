import { useEffect, useMemo, useState } from 'react';
import { createApi } from './api/client';
import { ApiContext } from './api/context';
import { clearSession, loadSession, saveSession, sessionFromToken, signInWithKey, takeCredentialFromHash, type Session } from './api/session';
import { SignIn } from './components/sign-in';
import { useShortcut, isTyping } from './components/shortcuts';
import { navigate, useLocation } from './router';
import { PAGES } from './pages';
import { NotFoundPage } from './pages/not-found/not-found-page';

type Theme = 'light' | 'dark';

function initialTheme(): Theme {
  const saved = localStorage.getItem('promptledger.theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const [signInError, setSignInError] = useState<string | null>(null);
  const [theme, setTheme] = useState<Theme>(initialTheme);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('promptledger.theme', theme);
  }, [theme]);

  useEffect(() => {
    const adopt = () => {
      const { key, token } = takeCredentialFromHash();
      if (token) {
        const s = sessionFromToken(token);
        saveSession(s);
        setSession(s);
      } else if (key) {
        signInWithKey(key).then(
          (s) => {
            setSignInError(null);
            saveSession(s);
            setSession(s);
          },
          (error: unknown) => setSignInError(error instanceof Error ? error.message : String(error)),
        );
      }
    };
    adopt();
    // A `#key=` link pasted into a tab that is already open changes only the hash: no reload.
    window.addEventListener('hashchange', adopt);
    return () => window.removeEventListener('hashchange', adopt);
  }, []);

  const api = useMemo(
    () =>
      session
        ? createApi(session.token, () => {
            clearSession();
            setSession(null);
          })
        : null,
    [session],
  );

  if (!api) {
    return (
      <SignIn
        error={signInError}
        onSignIn={async (key) => {
          const s = await signInWithKey(key);
          saveSession(s);
          setSession(s);
        }}
      />
    );
  }
  return (
    <ApiContext.Provider value={api}>
      <Shell
        theme={theme}
        onToggleTheme={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
        onSignOut={() => {
          clearSession();
          setSession(null);
        }}
      />
    </ApiContext.Provider>
  );
}

function Shell({ theme, onToggleTheme, onSignOut }: { theme: Theme; onToggleTheme: () => void; onSignOut: () => void }) {
  const { path } = useLocation();
  const page = PAGES.find((p) => path === p.path || path.startsWith(`${p.path}/`));
  const home = path === '/' || path === '';
  useEffect(() => {
    if (home) navigate(PAGES[0].path, { replace: true });
  }, [home]);
  useShortcut((event) => {
    if (isTyping(event) || event.metaKey || event.ctrlKey || event.altKey) return;
    const index = Number(event.key) - 1;
    if (Number.isInteger(index) && PAGES[index]) {
      event.preventDefault();
      navigate(PAGES[index].path);
    }
  });
  useEffect(() => {
    document.title = page ? `${page.title} · promptledger` : home ? 'promptledger' : 'Not found · promptledger';
  }, [page, home]);

  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand-mark" aria-hidden>◆</span> promptledger
        </div>
        <ul>
          {PAGES.map((p, i) => (
            <li key={p.path}>
              <a
                href={p.path}
                className={p === page ? 'active' : undefined}
                aria-current={p === page ? 'page' : undefined}
                title={`${p.title} (${i + 1})`}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(p.path);
                }}
              >
                <span className="nav-icon" aria-hidden>{p.icon}</span>
                {p.title}
                <kbd>{i + 1}</kbd>
              </a>
            </li>
          ))}
        </ul>
        <div className="sidebar-foot">
          <button type="button" className="ghost" onClick={onToggleTheme} aria-label="Toggle theme">
            {theme === 'dark' ? '☀ Light theme' : '☾ Dark theme'}
          </button>
          <button type="button" className="ghost" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </nav>
      <main className="content">{page ? <page.component /> : home ? null : <NotFoundPage path={path} />}</main>
    </div>
  );
}
