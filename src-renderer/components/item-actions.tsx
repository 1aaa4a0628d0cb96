import { useState } from 'react';
import { ConfirmDialog, RenameDialog } from './confirm-dialog';

export interface ItemActionsProps {
  /** What the item is, lower case: "dataset", "pipeline", "run", "prompt". */
  kind: string;
  name: string;
  /** Omitted: no Rename button. */
  onRename?: (name: string) => Promise<void>;
  onArchive: () => Promise<void>;
  /** What archiving leaves behind, for the confirmation ("Its runs stay readable."). */
  archiveNote: string;
}

/** "Rename…" and "Archive…" for one named thing, each through its dialog. */
export function ItemActions({ kind, name, onRename, onArchive, archiveNote }: ItemActionsProps) {
  const [dialog, setDialog] = useState<'rename' | 'archive' | null>(null);
  const close = () => setDialog(null);
  return (
    <>
      {onRename ? (
        <button type="button" onClick={() => setDialog('rename')}>
          Rename…
        </button>
      ) : null}
      <button type="button" className="danger" onClick={() => setDialog('archive')}>
        Archive…
      </button>
      {dialog === 'rename' && onRename ? <RenameDialog title={`Rename ${kind} "${name}"`} current={name} onSave={onRename} onClose={close} /> : null}
      {dialog === 'archive' ? (
        <ConfirmDialog
          title={`Archive ${kind} "${name}"?`}
          message={`It disappears from lists and can no longer be opened. ${archiveNote}`}
          confirmLabel={`Archive ${kind}`}
          onConfirm={onArchive}
          onClose={close}
        />
      ) : null}
    </>
  );
}
