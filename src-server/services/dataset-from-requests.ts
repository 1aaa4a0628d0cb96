import { AppError } from '../errors';
import type { FromRequestsBody } from '../schemas/datasets';
import { keysetOf, type Keyset, type LoggedRequest, type RequestFilter, type RequestStore } from '../store/requests';
import { requestFilter } from './request-filter';
import { publishRecords, type DatasetImportDeps, type PublishedVersion } from './dataset-import';

/** Columns every request row has, after its input variables. */
export const REQUEST_COLUMNS = ['input', 'output', 'model', 'tags', 'request_id'] as const;
const FIXED = new Set<string>(REQUEST_COLUMNS);
/** Requests read per explorer page while building a version. */
const PAGE = 500;

type Block = { type?: string; text?: unknown };
type Message = { role?: string; content?: Block[] | string };
/** A stored input or output: a chat or completion template (validated when it was logged). */
type Template = { type?: string; content?: Block[]; messages?: Message[] };

const textOf = (content: Block[] | string | undefined): string =>
  typeof content === 'string'
    ? content
    : (content ?? [])
        .filter((b) => b.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text as string)
        .join('');

/** The prompt as sent: completion text, or chat messages as `{role, content}` with their text. */
function renderInput(input: Template): unknown {
  if (input.type === 'chat') return (input.messages ?? []).map((m) => ({ role: m.role, content: textOf(m.content) }));
  return textOf(input.content);
}

/** The answer's text; a reply with no text (only tool calls) is kept whole as JSON. */
function renderOutput(output: Template): unknown {
  if (output.type === 'chat') {
    const messages = output.messages ?? [];
    const text = messages.filter((m) => m.role === 'assistant').map((m) => textOf(m.content)).join('\n');
    return text === '' && messages.length > 0 ? messages : text;
  }
  if (output.type === 'completion') return textOf(output.content);
  return output;
}

/**
 * One dataset row from a logged request: its input variables (only `variablesToParse` when
 * given; absent ones are null) and then input, output, model, tags and request_id. A variable
 * named like one of those columns is kept as `<name>_variable`.
 */
export function requestRecord(row: LoggedRequest, variablesToParse?: readonly string[]): Record<string, unknown> {
  const variables = row.prompt_input_variables;
  // Null prototype and hasOwn: a variable named `__proto__` or `constructor` is a column like any other.
  const record = Object.create(null) as Record<string, unknown>;
  const names = variablesToParse ?? Object.keys(variables ?? {});
  for (const name of names) record[FIXED.has(name) ? `${name}_variable` : name] = variables && Object.hasOwn(variables, name) ? variables[name] ?? null : null;
  record.input = renderInput(row.input as Template);
  record.output = renderOutput(row.output as Template);
  record.model = row.model;
  record.tags = row.tags;
  record.request_id = row.id;
  return record;
}

/** `from-filter-params`: the listed requests (in the given order) or the explorer's matches (newest first). */
export async function publishFromRequests(
  deps: DatasetImportDeps & { requests: RequestStore; textIndexed: () => Promise<void> },
  workspaceId: number,
  body: FromRequestsBody,
): Promise<PublishedVersion> {
  const { requests } = deps;
  let rows: AsyncIterable<Array<Record<string, unknown>>>;
  if (body.request_log_ids) {
    const ids = [...new Set(body.request_log_ids)].slice(0, body.limit);
    // All ids are checked before anything is written: a missing one fails the whole request.
    ids.forEach((id, i) => {
      if (!requests.get(workspaceId, id)) {
        throw new AppError('not_found', `Request ${id} not found.`, [{ loc: ['body', 'request_log_ids', i], msg: 'Request not found', type: 'not_found' }]);
      }
    });
    rows = (async function* () {
      for (let i = 0; i < ids.length; i += PAGE) {
        yield ids.slice(i, i + PAGE).flatMap((id) => {
          const row = requests.get(workspaceId, id);
          return row ? [requestRecord(row, body.variables_to_parse)] : [];
        });
      }
    })();
  } else {
    const filter = requestFilter(body);
    // A text query reads the index, written by the ingest thread after it answers.
    if (filter.q !== undefined && filter.q.trim() !== '') await deps.textIndexed();
    if (requests.list(workspaceId, filter, undefined, 1).length === 0) {
      throw new AppError('bad_request', 'No logged request matches these filters; nothing to put in a dataset version.');
    }
    rows = (async function* () {
      let left = body.limit;
      let after: Keyset | undefined;
      while (left > 0) {
        const page = requests.list(workspaceId, filter, after, Math.min(PAGE, left));
        yield page.map((row) => requestRecord(row, body.variables_to_parse));
        left -= page.length;
        if (page.length < Math.min(PAGE, left + page.length)) return;
        after = keysetOf(page[page.length - 1]);
      }
    })();
  }
  return publishRecords(deps, body.dataset_group_id, rows);
}
