import type { KeyboardEvent } from 'react';

/** 1-based numbers of the rows with no value in any column (an added row nobody filled in). */
export function emptyRowNumbers(rows: Record<string, unknown>[], columns: string[]): number[] {
  const blank = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
  return rows.flatMap((row, i) => (columns.every((c) => blank(row[c])) ? [i + 1] : []));
}

/**
 * Enter commits a cell as in a spreadsheet: focus moves to the cell below (or leaves the last
 * row) instead of typing a newline into the value; Shift+Enter still types one.
 */
export function onCellEnter(event: KeyboardEvent<HTMLTextAreaElement>, below: string): void {
  if (event.key !== 'Enter' || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey || event.nativeEvent.isComposing) return;
  event.preventDefault();
  const next = event.currentTarget.closest('table')?.querySelector<HTMLTextAreaElement>(`textarea[aria-label="${CSS.escape(below)}"]`);
  if (next) next.focus();
  else event.currentTarget.blur();
}
