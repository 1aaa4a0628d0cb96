import { navigate, setParams } from '../../router';

/**
 * A request's tags as chips that filter the list by that tag. Tags already in the filter come
 * first and are always shown (they are why the row is listed); the rest fill up to `max`.
 */
export function TagChips({ tags, filtered, max = Infinity }: { tags: string[]; filtered: string[]; max?: number }) {
  const inFilter = tags.filter((t) => filtered.includes(t));
  const others = tags.filter((t) => !filtered.includes(t));
  const shown = [...inFilter, ...others.slice(0, Math.max(0, max - inFilter.length))];
  const hidden = tags.length - shown.length;
  return (
    <span className="tag-chips">
      {shown.map((tag) => {
        const active = filtered.includes(tag);
        return (
          <button
            key={tag}
            type="button"
            className={`badge tag-chip${active ? ' accent' : ''}`}
            title={active ? `Filtered by tag “${tag}”` : `Show only requests tagged “${tag}”`}
            aria-pressed={active}
            onClick={(e) => {
              e.stopPropagation();
              if (active) return;
              // Elsewhere (a trace's linked request) a chip opens the request list filtered by it.
              if (location.pathname === '/requests') setParams({ tag: [...filtered, tag] });
              else navigate(`/requests?tag=${encodeURIComponent(tag)}`);
            }}
          >
            {tag}
          </button>
        );
      })}
      {hidden > 0 ? <span className="muted small" title={others.slice(shown.length - inFilter.length).join(', ')}>+{hidden}</span> : null}
    </span>
  );
}
