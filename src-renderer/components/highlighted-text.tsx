/** The search's terms as the server matches them: split on spaces, case-insensitive substrings. */
export const searchTerms = (q: string | null | undefined) => (q ?? '').split(/\s+/).filter(Boolean);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every occurrence of the terms marked, so a search hit is easy to find in a long message. */
export function HighlightedText({ text, terms }: { text: string; terms: string[] }) {
  if (terms.length === 0) return <>{text}</>;
  const pattern = new RegExp(`(${terms.map(escape).join('|')})`, 'giu');
  const parts = text.split(pattern);
  return <>{parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</>;
}
