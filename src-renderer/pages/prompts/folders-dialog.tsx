import { useState } from 'react';
import { useApi, useLoad } from '../../api/context';
import type { Folder, FolderList } from '../../api/types';
import { RenameDialog } from '../../components/confirm-dialog';
import { countOf } from '../../components/format';
import { Modal } from '../../components/modal';

/** The workspace's folders as a tree, parents before children, each with its depth. */
function tree(folders: Folder[]): Array<{ folder: Folder; depth: number }> {
  const children = new Map<number | null, Folder[]>();
  for (const f of folders) children.set(f.parent_id, [...(children.get(f.parent_id) ?? []), f]);
  const out: Array<{ folder: Folder; depth: number }> = [];
  const walk = (parent: number | null, depth: number) => {
    for (const f of (children.get(parent) ?? []).sort((a, b) => a.name.localeCompare(b.name))) {
      out.push({ folder: f, depth });
      walk(f.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** Folders (the SDK's and API's way to group prompts and datasets): list, create, rename. */
export function FoldersDialog({ onClose }: { onClose: () => void }) {
  const api = useApi();
  const list = useLoad((call, signal) => call<FolderList>('/api/public/v2/folders', { signal }), []);
  const [editing, setEditing] = useState<{ folder: Folder | null; parent: number | null } | null>(null);
  const rows = tree(list.data?.folders ?? []);
  const save = async (name: string) => {
    if (editing?.folder) await api(`/api/public/v2/folders/${editing.folder.id}`, { method: 'PATCH', body: { name } });
    else await api('/api/public/v2/folders', { method: 'POST', body: { name, parent_id: editing?.parent ?? null } });
    list.reload();
  };
  return (
    <Modal title="Folders" onClose={onClose}>
      <div className="stack">
        <p className="muted">{list.data ? countOf(list.data.folders.length, 'folder') : 'Loading…'}</p>
        {list.error ? <p className="error" role="alert">{list.error}</p> : null}
        {list.data && rows.length === 0 ? (
          <p className="muted">No folders yet. Folders group prompts and datasets; the SDKs create them too.</p>
        ) : (
          <ul aria-label="Folders" style={{ listStyle: 'none', margin: 0, padding: 0, minWidth: 420 }}>
            {rows.map(({ folder, depth }) => (
              <li key={folder.id} style={{ padding: `4px 0 4px ${depth * 20}px`, display: 'flex', gap: 8, alignItems: 'center' }}>
                <span style={{ flex: 1 }}>{depth > 0 ? <span className="muted">└ </span> : null}{folder.name}</span>
                <button type="button" onClick={() => setEditing({ folder, parent: folder.parent_id })} aria-label={`Rename folder ${folder.name}`}>
                  Rename…
                </button>
                <button type="button" onClick={() => setEditing({ folder: null, parent: folder.id })} aria-label={`New folder inside ${folder.name}`}>
                  + Inside
                </button>
              </li>
            ))}
          </ul>
        )}
        <div>
          <button type="button" className="primary" onClick={() => setEditing({ folder: null, parent: null })}>
            + New folder
          </button>
        </div>
      </div>
      {editing ? (
        <RenameDialog
          title={editing.folder ? `Rename folder "${editing.folder.name}"` : 'New folder'}
          current={editing.folder?.name ?? ''}
          saveLabel={editing.folder ? 'Rename' : 'Create'}
          onSave={save}
          onClose={() => setEditing(null)}
        />
      ) : null}
    </Modal>
  );
}
