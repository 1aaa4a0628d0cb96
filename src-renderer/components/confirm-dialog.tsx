import { useState } from 'react';
import { errorText } from '../api/client';
import { Modal } from './modal';

export interface ConfirmDialogProps {
  /** The question, naming what goes and how many: "Delete 1,234 requests?". */
  title: string;
  message: string;
  confirmLabel: string;
  /** Runs on confirm; the dialog stays open (showing the error) if it throws. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** Asks before a destructive action; the confirm button is the only way through, Escape cancels. */
export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onClose }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <Modal title={title} onClose={busy ? () => {} : onClose}>
      <div className="stack">
        <p style={{ margin: 0 }}>{message}</p>
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="danger" onClick={() => void confirm()} disabled={busy} autoFocus>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </div>
    </Modal>
  );
}

/** Asks for a new name; `onSave` may throw (a 409 shows in the dialog). */
export function RenameDialog({ title, current, onSave, onClose, saveLabel = 'Rename' }: {
  title: string;
  current: string;
  onSave: (name: string) => Promise<void>;
  onClose: () => void;
  /** The submit button's word: "Rename", or "Create" when the dialog names something new. */
  saveLabel?: string;
}) {
  const [name, setName] = useState(current);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      await onSave(name.trim());
      onClose();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <Modal title={title} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          Name
          <input aria-label="New name" autoFocus value={name} maxLength={255} onChange={(e) => setName(e.target.value)} />
        </label>
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || !name.trim() || name.trim() === current}>
            {busy ? 'Saving…' : saveLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}
