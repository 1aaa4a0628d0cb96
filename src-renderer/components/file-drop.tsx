import { useRef, useState } from 'react';

/** Drag a file here or pick one; hands over name and bytes (base64), which is what the import endpoint takes. */
export function FileDrop({ accept, hint, onFile }: { accept: string; hint: string; onFile: (file: { name: string; base64: string }) => void }) {
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const read = (file: File | undefined) => {
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => onFile({ name: file.name, base64: String(reader.result).replace(/^data:[^,]*,/, '') });
    reader.readAsDataURL(file);
  };
  return (
    <div
      className={`dropzone ${over ? 'over' : ''}`}
      role="button"
      tabIndex={0}
      aria-label="Import a file"
      onClick={() => input.current?.click()}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && input.current?.click()}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        read(e.dataTransfer.files[0]);
      }}
    >
      <b>Drop a file here</b> or click to choose · <span>{hint}</span>
      <input
        ref={input}
        type="file"
        accept={accept}
        hidden
        data-testid="file-input"
        onChange={(e) => {
          read(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
    </div>
  );
}
