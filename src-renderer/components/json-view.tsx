import type { ReactNode } from 'react';

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

/** Pretty JSON with keys, strings and numbers coloured; text only (no HTML injection path). */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? 'undefined';
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    const index = match.index ?? 0;
    if (index > last) parts.push(text.slice(last, index));
    const className = match[1] ? (match[2] ? 'k' : 's') : 'n';
    parts.push(
      <span key={index} className={className}>
        {match[1] ?? match[0]}
      </span>,
    );
    if (match[2]) parts.push(match[2]);
    last = index + match[0].length;
  }
  parts.push(text.slice(last));
  return (
    <pre className="json" aria-label={label}>
      {parts}
    </pre>
  );
}
