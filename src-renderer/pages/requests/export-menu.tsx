import { useEffect, useRef, useState } from 'react';
import { errorText, type Query } from '../../api/client';
import { useApi } from '../../api/context';

type Choice = { label: string; format: 'jsonl' | 'csv'; bom: boolean; hint: string };
const CHOICES: Choice[] = [
  { label: 'JSONL', format: 'jsonl', bom: false, hint: 'One full record per line, lossless' },
  { label: 'CSV', format: 'csv', bom: false, hint: 'One row per request, JSON values as text' },
  { label: 'CSV for Excel', format: 'csv', bom: true, hint: 'CSV with a UTF-8 byte order mark, so Excel reads accents and CJK' },
];

/** The browser's streaming save (Chromium, Electron); absent elsewhere. */
type SavePicker = (options: { suggestedName: string }) => Promise<{ createWritable(): Promise<WritableStream<Uint8Array>> }>;

/**
 * Downloads every request matching the current filters. Where the browser can write a file as it
 * arrives (showSaveFilePicker), the export streams to disk and a million rows never sit in memory;
 * elsewhere it is collected into a Blob first.
 */
export function ExportMenu({ query }: { query: Query }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const menu = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => !menu.current?.contains(e.target as Node) && setOpen(false);
    const escape = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);

  const run = async (choice: Choice) => {
    setOpen(false);
    setError(null);
    const extension = choice.format;
    const suggestedName = `requests-${new Date().toISOString().slice(0, 19).replaceAll(':', '-')}.${extension}`;
    const picker = (window as unknown as { showSaveFilePicker?: SavePicker }).showSaveFilePicker;
    try {
      // The picker must open within the click's user activation, before any await.
      const file = picker ? picker({ suggestedName }) : null;
      setBusy(true);
      const response = await api<Response>('/api/public/v2/requests/export', {
        query: { ...query, format: choice.format, ...(choice.bom ? { bom: 'true' } : {}) },
        raw: true,
      });
      if (file) {
        await response.body!.pipeTo(await (await file).createWritable());
      } else {
        const url = URL.createObjectURL(await response.blob());
        const link = Object.assign(document.createElement('a'), { href: url, download: suggestedName });
        link.click();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      }
    } catch (e) {
      // Closing the save dialog is a choice, not an error.
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="export-menu" ref={menu}>
      <button type="button" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)} disabled={busy}>
        {busy ? 'Exporting…' : 'Export ▾'}
      </button>
      {open ? (
        <span className="export-menu-list" role="menu">
          {CHOICES.map((c) => (
            <button key={c.label} type="button" role="menuitem" title={c.hint} onClick={() => void run(c)}>
              {c.label}
            </button>
          ))}
        </span>
      ) : null}
      {error ? <span className="error" role="alert">{error}</span> : null}
    </span>
  );
}
