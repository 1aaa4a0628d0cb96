/** Shapes the UI reads, as API.md defines them (only the fields the UI uses). */
export interface RequestItem {
  id: number;
  provider: string;
  model: string;
  input: unknown;
  output: unknown;
  request_start_time: string;
  request_end_time: string;
  latency_ms: number;
  parameters: Record<string, unknown>;
  tags: string[];
  metadata: Record<string, string>;
  prompt_id: number | null;
  prompt_name: string | null;
  prompt_version_number: number | null;
  prompt_input_variables: Record<string, unknown>;
  input_tokens: number;
  output_tokens: number;
  price: number;
  function_name: string | null;
  status: 'SUCCESS' | 'WARNING' | 'ERROR';
  error_type: string | null;
  error_message: string | null;
  group_id: number | null;
  /** The `default` score; 0 when none was given, as the seed specifies (see `scored`). */
  score: number;
  /** Whether any score was given explicitly (log body, tracking endpoints). */
  scored: boolean;
  span_id: string | null;
  trace_id: string | null;
  scores: Record<string, number>;
  prompt_version: { prompt_template: unknown; commit_message: string | null; metadata: Record<string, unknown> } | null;
  created_at: string;
}

export interface RequestPage {
  items: RequestItem[];
  next_cursor: string | null;
  total_estimate: number;
}

export interface StatsTotals {
  requests: number;
  errors: number;
  cost: number;
  input_tokens: number;
  output_tokens: number;
  latency_ms: { avg: number; p50: number; p95: number; p99: number };
}

export interface RequestStats {
  totals: StatsTotals;
  by_day: (StatsTotals & { day: string })[];
  by_model: (StatsTotals & { provider: string; model: string })[];
}

export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  pages: number;
  total: number;
  has_next: boolean;
}

export interface TemplateMessage {
  role: string;
  content: { type: string; text?: string }[];
  [key: string]: unknown;
}

export type PromptTemplateBody =
  | { type: 'chat'; messages: TemplateMessage[]; input_variables?: string[]; [key: string]: unknown }
  | { type: 'completion'; content: { type: string; text?: string }[]; template_format?: string; input_variables?: string[]; [key: string]: unknown };

export interface ModelMetadata {
  provider?: string;
  name?: string;
  parameters?: Record<string, unknown>;
}

export interface PromptListItem {
  id: number;
  prompt_name: string;
  prompt_template: PromptTemplateBody;
  metadata: { model?: ModelMetadata; [key: string]: unknown };
  commit_message: string | null;
  version: number;
  release_labels: string[];
  tags: string[];
  created_at: string;
}

export interface PromptVersion {
  id: number;
  prompt_id: number;
  version_number: number;
  prompt_template: PromptTemplateBody;
  commit_message: string | null;
  metadata: { model?: ModelMetadata; [key: string]: unknown };
  release_labels: string[];
  created_at: string;
}

export interface ReleaseLabel {
  id: number;
  name: string;
  prompt_version_number: number;
}

export interface DatasetVersion {
  id: number;
  dataset_group_id: number;
  version_number: number;
  column_names: string[];
  row_count: number;
  created_at: string;
}

export interface DatasetGroup {
  id: number;
  name: string;
  created_at: string;
  version_count: number;
  latest_version: DatasetVersion | null;
  draft_dataset_id: number | null;
}

export interface DatasetRows {
  columns: string[];
  rows: { row_index: number; data: Record<string, unknown> }[];
  page: number;
  pages: number;
  total: number;
}

export interface ReportColumn {
  id: number;
  report_id: number;
  column_type: string;
  name: string;
  configuration: Record<string, unknown>;
  position: number;
  is_part_of_score: boolean;
}

export type RunStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED';

export interface ReportDetail {
  report: { id: number; name: string; is_blueprint: boolean; parent_report_id: number | null; dataset_group_id: number; dataset_id: number; score: number | null; created_at: string };
  status: RunStatus | null;
  error: string | null;
  stats: { status_counts: Record<'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED', number>; cost: number; input_tokens: number; output_tokens: number; duration_ms: number | null };
  report_columns: ReportColumn[];
}

export interface RunSummary {
  id: number;
  name: string;
  status: RunStatus;
  score: number | null;
  dataset_id: number;
  created_at: string;
}

export interface PipelineSummary {
  id: number;
  name: string;
  dataset_group_id: number;
  column_count: number;
  created_at: string;
  runs: RunSummary[];
}

export type CellStatus = 'PASSED' | 'FAILED' | 'ERROR' | 'QUEUED' | 'RUNNING' | 'SKIPPED';

export interface ReportCell {
  value: unknown;
  status: CellStatus;
  error?: string;
  cost?: number;
  latency_ms?: number;
}

export interface ReportRows {
  columns: { id: number; name: string; column_type: string }[];
  rows: { row_index: number; cells: Record<string, ReportCell> }[];
  page: number;
  pages: number;
  total: number;
}

export interface RunProgress {
  report_id: number;
  status: RunStatus;
  total_cells: number;
  done_cells: number;
  running_cells: number;
  errors: number;
  cost: number;
}

/** Traces come straight from the server's own types (type-only imports, erased from the bundle). */
export type TraceList = ReturnType<import('../../src-server/services/traces').TraceService['list']>;
export type TraceItem = TraceList['traces'][number];
export type TraceDetail = ReturnType<import('../../src-server/services/traces').TraceService['get']>;
export type TraceSpan = TraceDetail['spans'][number];
