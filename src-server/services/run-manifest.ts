import { createHash } from 'node:crypto';
import { DEFAULT_JUDGE } from '../eval/columns/ai-data-extraction';

/**
 * Run manifests (API.md §6): everything that can move — a label, "latest", a provider's base URL,
 * a code cell's text — resolved once when a run starts. The run's own columns are pinned to what
 * was resolved (a label's version number is written into the column), so the runner, a resumed
 * run and a reproduced run all do the same work. A manifest never holds a secret.
 */

export interface ResolvedPrompt {
  prompt_template_id: number;
  prompt_name: string;
  version_number: number;
  metadata: Record<string, unknown>;
}

export interface ManifestTools {
  /** The version a `{name, version_number?, label?}` reference points at now; null if none. */
  resolvePrompt(workspaceId: number, ref: { name: string; version_number?: number | null; label?: string | null }): ResolvedPrompt | null;
  /** Where a provider's calls go (no credentials); null for an unknown provider. */
  baseUrl(workspaceId: number, provider: string): string | null;
  appVersion: string;
}

export interface ManifestColumn {
  name: string;
  column_type: string;
  position: number;
  configuration: Record<string, unknown>;
  resolved: {
    prompt_template_id?: number;
    prompt_name?: string;
    version_number?: number;
    label?: string;
    provider?: string;
    model?: string;
    parameters?: Record<string, unknown>;
    base_url?: string | null;
    code_sha256?: string;
  };
}

export interface RunManifest {
  dataset: { dataset_group_id: number; dataset_id: number; version_number: number; row_count: number; sha256: string };
  columns: ManifestColumn[];
  concurrency: number | null;
  app_version: string;
  started_at: string;
  /** The run this one repeats with `reproduce_report_id`; absent on other runs. */
  reproduces_report_id?: number;
}

type Engine = { provider: string; model: string; parameters?: Record<string, unknown> };

/** Column types that call a chat model, and the judge they use when the column names none. */
const JUDGED = new Set(['LLM_ASSERTION', 'AI_DATA_EXTRACTION']);

/**
 * Pins one evaluated column: returns the configuration the run will store (a label resolved to
 * its version number) and what the manifest says was resolved.
 */
export function pinColumn(
  tools: ManifestTools,
  workspaceId: number,
  column: { name: string; column_type: string; configuration: Record<string, unknown> },
): { configuration: Record<string, unknown>; resolved: ManifestColumn['resolved'] } {
  const config = column.configuration;
  const resolved: ManifestColumn['resolved'] = {};
  let configuration = config;
  let engine = (config.engine ?? null) as Engine | null;
  const template = config.template as { name: string; version_number?: number | null; label?: string | null } | undefined;
  if (column.column_type === 'PROMPT_TEMPLATE' && template) {
    const prompt = tools.resolvePrompt(workspaceId, template);
    // An unresolvable reference stays as it is: its cells fail with the usual message.
    if (prompt) {
      // The run asks for the version itself; the label it came from is kept in `resolved.label`.
      configuration = { ...config, template: { name: template.name, version_number: prompt.version_number } };
      Object.assign(resolved, { prompt_template_id: prompt.prompt_template_id, prompt_name: prompt.prompt_name, version_number: prompt.version_number });
      if (template.label && template.version_number == null) resolved.label = template.label;
      const model = (prompt.metadata.model ?? {}) as { provider?: string; name?: string; parameters?: Record<string, unknown> };
      if (!engine && model.provider && model.name) engine = { provider: model.provider, model: model.name, parameters: model.parameters ?? {} };
    }
  } else if (column.column_type === 'PROMPT_TEMPLATE' && !engine) {
    const inline = config.inline_template as { metadata?: { model?: { provider?: string; name?: string; parameters?: Record<string, unknown> } } | null };
    const model = inline.metadata?.model;
    if (model?.provider && model.name) engine = { provider: model.provider, model: model.name, parameters: model.parameters ?? {} };
  }
  if (!engine && JUDGED.has(column.column_type)) engine = DEFAULT_JUDGE;
  if (engine) {
    resolved.provider = engine.provider;
    resolved.model = engine.model;
    resolved.parameters = redact(engine.parameters ?? {}) as Record<string, unknown>;
    resolved.base_url = tools.baseUrl(workspaceId, engine.provider);
  }
  if (column.column_type === 'CODE_EXECUTION' && typeof config.code === 'string') {
    resolved.code_sha256 = createHash('sha256').update(config.code).digest('hex');
  }
  return { configuration, resolved };
}

/** SHA-256 of a version's rows, in row order, each row's JSON on its own line. */
export function datasetSha256(rows: Iterable<{ data: Record<string, unknown> }>): string {
  const hash = createHash('sha256');
  for (const row of rows) hash.update(`${JSON.stringify(row.data)}\n`);
  return hash.digest('hex');
}

type RowPages = (workspaceId: number, datasetId: number, from: number, limit: number) => Array<{ row_index: number; data: Record<string, unknown> }>;

/** The hash of a stored version, read 1,000 rows at a time so a large version is never held whole. */
export function versionSha256(rows: RowPages, workspaceId: number, datasetId: number): string {
  function* all() {
    for (let from = 0; ; ) {
      const chunk = rows(workspaceId, datasetId, from, 1000);
      if (chunk.length === 0) return;
      yield* chunk;
      from = chunk[chunk.length - 1].row_index + 1;
    }
  }
  return datasetSha256(all());
}

const SECRET_KEY = /^(authorization|proxy-authorization|cookie|set-cookie|token|x-api-key)$|api[-_]?key|secret|passw(or)?d|access[-_]?token|auth[-_]?token|bearer|credential|private[-_]?key/i;
export const REDACTED = '[redacted]';

/**
 * A copy without secrets: values under secret-sounding keys, every HTTP header value (a header is
 * where an ENDPOINT column keeps its credentials), and credentials inside URLs are replaced.
 */
export function redact(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => redact(v));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (/^headers$/i.test(key)) return Object.fromEntries(entries.map(([k]) => [k, REDACTED]));
    return Object.fromEntries(entries.map(([k, v]) => [k, SECRET_KEY.test(k) ? REDACTED : redact(v, k)]));
  }
  if (typeof value === 'string' && /^https?:\/\//i.test(value)) return redactUrl(value);
  return value;
}

/** A URL without user:password and with secret-sounding query values replaced. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  if (!url.username && !url.password && ![...url.searchParams.keys()].some((k) => SECRET_KEY.test(k) || /^(key|sig|signature)$/i.test(k))) return raw;
  url.username = '';
  url.password = '';
  for (const k of [...url.searchParams.keys()]) if (SECRET_KEY.test(k) || /^(key|sig|signature)$/i.test(k)) url.searchParams.set(k, REDACTED);
  return url.toString();
}
