import { useEffect, useState } from 'react';

/** Shown without a session: the key is in `<data dir>/api-key`, printed at first start, and in the desktop app's Connect menu. */
export function SignIn({ error, onSignIn }: { error: string | null; onSignIn: (key: string) => Promise<void> }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(error);
  // A `#key=` link pasted later (hashchange) can fail after this form is already on screen.
  useEffect(() => setFailure(error), [error]);
  return (
    <div className="sign-in">
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setFailure(null);
          onSignIn(key).catch((err: unknown) => {
            setFailure(err instanceof Error ? err.message : String(err));
            setBusy(false);
          });
        }}
      >
        <h1>
          <span className="brand-mark">◆</span> promptledger
        </h1>
        <p className="muted">
          Sign in with an API key. The first key was printed when the server first started and saved to <code>api-key</code> in
          the data folder; <code>npm start</code> prints a link that signs you in directly.
        </p>
        <label>
          API key
          <input autoFocus value={key} onChange={(e) => setKey(e.target.value)} placeholder="pl_…" spellCheck={false} />
        </label>
        {failure ? <p className="error" role="alert">{failure}</p> : null}
        <button type="submit" className="primary" disabled={!key.trim() || busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
