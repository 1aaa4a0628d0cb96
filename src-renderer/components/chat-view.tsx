import { HighlightedText } from './highlighted-text';
import { JsonView } from './json-view';

interface Block {
  type?: string;
  text?: string;
  [key: string]: unknown;
}
interface Message {
  role?: string;
  content?: Block[] | string;
  name?: string;
  tool_calls?: unknown;
  tool_call_id?: string;
}
interface Template {
  type?: string;
  messages?: Message[];
  content?: Block[] | string;
  tools?: unknown;
}

function Blocks({ content, highlight }: { content: Block[] | string | undefined; highlight: string[] }) {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return <div className="msg-body"><HighlightedText text={content} terms={highlight} /></div>;
  return (
    <>
      {content.map((block, i) =>
        block.type === 'text' || (block.type === undefined && typeof block.text === 'string') ? (
          <div key={i} className="msg-body">
            <HighlightedText text={block.text ?? ''} terms={highlight} />
          </div>
        ) : (
          // Images, thinking, tool blocks… are stored verbatim; showing them as JSON hides nothing.
          <div key={i} className="msg-body">
            <span className="badge">{block.type ?? 'block'}</span>
            <JsonView value={block} />
          </div>
        ),
      )}
    </>
  );
}

/** A logged input or output (chat or completion template) as a conversation; `highlight` marks search terms. */
export function ChatView({ template, label, highlight = [] }: { template: unknown; label: string; highlight?: string[] }) {
  const t = (template ?? {}) as Template;
  if (t.type === 'chat' && Array.isArray(t.messages)) {
    return (
      <div className="chat" aria-label={label}>
        {t.messages.map((m, i) => (
          <div key={i} className={`msg ${m.role ?? ''}`}>
            <div className="msg-role">
              {m.role ?? 'message'}
              {m.name ? <span className="muted">· {m.name}</span> : null}
              {m.tool_call_id ? <span className="muted">· {m.tool_call_id}</span> : null}
            </div>
            <Blocks content={m.content} highlight={highlight} />
            {m.tool_calls ? (
              <div className="msg-body">
                <span className="badge accent">tool calls</span>
                <JsonView value={m.tool_calls} />
              </div>
            ) : null}
          </div>
        ))}
        {t.messages.length === 0 ? <p className="muted">No messages.</p> : null}
      </div>
    );
  }
  if (t.type === 'completion') {
    return (
      <div className="chat" aria-label={label}>
        <div className="msg">
          <div className="msg-role">completion</div>
          <Blocks content={t.content} highlight={highlight} />
        </div>
      </div>
    );
  }
  return <JsonView value={template} label={label} />;
}

/** The text a row preview shows: the last user message, else the first text anywhere. */
export function previewText(template: unknown): string {
  const t = (template ?? {}) as Template;
  const text = (content: Message['content']) =>
    typeof content === 'string' ? content : (content ?? []).map((b) => b.text ?? '').filter(Boolean).join(' ');
  if (t.type === 'chat' && Array.isArray(t.messages)) {
    const user = [...t.messages].reverse().find((m) => m.role === 'user');
    return text((user ?? t.messages[t.messages.length - 1])?.content).slice(0, 300);
  }
  if (t.type === 'completion') return text(t.content).slice(0, 300);
  return JSON.stringify(template ?? '').slice(0, 300);
}
