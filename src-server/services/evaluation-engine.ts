import { AppError, notFound } from '../errors';
import { CellError, type PromptSource } from '../eval/column-type';
import { createLlmGateway, type LlmCallLog } from '../eval/llm-gateway';
import type { PriceQuote } from './pricing';
import type { OutboundFetch } from '../outbound/gate';
import { createRunner } from '../eval/runner';
import { createSandbox } from '../eval/sandbox/sandbox';
import type { Logger } from '../logger';
import type { DatasetStore } from '../store/datasets';
import type { ReportCellStore } from '../store/report-cells';
import type { ReportStore } from '../store/reports';
import type { Writer } from '../store/writer';
import { TemplateRenderError } from '../templates/jinja2';
import { renderPromptTemplate } from '../templates/render-prompt';
import { rowData, type DatasetService } from './datasets';
import type { PromptService } from './prompts';
import type { ProviderService } from './providers';
import pkg from '../../package.json';
import { createReportPreview, DEFAULT_PREVIEW_TIMEOUT_MS } from './report-preview';
import { createReportRunService } from './report-runs';
import { redactUrl, type ManifestTools } from './run-manifest';
import { createReportService, type ReportDatasets } from './reports';
import type { OwnCall, RequestService } from './requests';

export const DEFAULT_EVAL_CONCURRENCY = 8;

export interface EvaluationEngineDeps {
  reports: ReportStore;
  cells: ReportCellStore;
  writer: Writer;
  datasets: DatasetService;
  datasetStore: DatasetStore;
  folderExists(workspaceId: number, folderId: number): boolean;
  prompts: PromptService;
  providers: ProviderService;
  requests: RequestService;
  /** Prices each LLM call a run makes (services/pricing.ts). */
  quote: PriceQuote;
  /** PROMPTLEDGER_EVAL_CONCURRENCY, PROMPTLEDGER_PREVIEW_TIMEOUT_MS. */
  env: Record<string, string | undefined>;
  /** In-flight LLM calls per provider and rows per run; default PROMPTLEDGER_EVAL_CONCURRENCY, else 8. */
  concurrency?: number;
  /** The outbound gate every provider call and ENDPOINT cell goes through. */
  outbound: OutboundFetch;
  now: () => number;
  log: Logger;
}

/** Wires the report services to the runner; `start()` resumes interrupted runs, `stop()` pauses them. */
export function createEvaluationEngine(deps: EvaluationEngineDeps) {
  const { reports, cells, writer, now } = deps;
  const envConcurrency = Number(deps.env.PROMPTLEDGER_EVAL_CONCURRENCY);
  const concurrency = deps.concurrency ?? (Number.isInteger(envConcurrency) && envConcurrency > 0 ? envConcurrency : DEFAULT_EVAL_CONCURRENCY);

  const envPreviewTimeout = Number(deps.env.PROMPTLEDGER_PREVIEW_TIMEOUT_MS);
  const previewTimeoutMs = Number.isInteger(envPreviewTimeout) && envPreviewTimeout > 0 ? envPreviewTimeout : DEFAULT_PREVIEW_TIMEOUT_MS;

  const datasets: ReportDatasets = {
    resolveVersion: (ws, groupId, versionNumber) => deps.datasets.resolveVersion(ws, groupId, versionNumber),
    version: (ws, datasetId) => deps.datasets.version(ws, datasetId),
    draftVersion(ws, groupId) {
      deps.datasets.requireGroup(ws, groupId);
      const draft = deps.datasetStore.draft(groupId);
      if (!draft) throw notFound(`The draft of dataset group ${groupId}`);
      return deps.datasets.version(ws, draft.id);
    },
    rows(ws, datasetId, from, limit) {
      const { column_names } = deps.datasets.version(ws, datasetId);
      return deps.datasetStore.rows(datasetId, from, limit).map((r) => ({ row_index: r.row_index, data: rowData(column_names, r.data) }));
    },
  };

  const prompts: PromptSource = {
    resolve(workspaceId, ref) {
      try {
        const prepared = deps.prompts.prepare(workspaceId, ref, { skip_input_variable_rendering: true });
        return { prompt_template: prepared.prompt_template, metadata: prepared.metadata };
      } catch (error) {
        if (error instanceof AppError && error.status === 404) return null;
        throw error;
      }
    },
    render(template, variables) {
      try {
        return renderPromptTemplate(template, variables);
      } catch (error) {
        if (error instanceof TemplateRenderError) throw new CellError(`The template could not be rendered: ${error.message}`);
        throw error;
      }
    },
  };

  const llm = createLlmGateway({
    concurrency,
    now,
    connect: (workspaceId, name) => deps.providers.connect(workspaceId, name),
    outbound: deps.outbound,
    quote: deps.quote,
    logCall: (workspaceId, call, durable) => deps.requests.recordOwnCall(workspaceId, ownCall(call), { durable }).catch((error: unknown) => deps.log.error('Could not log an evaluation call', error)),
  });

  // The services reach the runner late (it needs their scores), hence `() => runner`.
  const pipelines = createReportService({
    reports, cells, writer, datasets, folderExists: deps.folderExists, runner: () => runner, now,
  });
  const manifest: ManifestTools = {
    appVersion: pkg.version,
    resolvePrompt(workspaceId, ref) {
      const found = deps.prompts.links.resolve(workspaceId, { promptName: ref.name, versionNumber: ref.version_number ?? null, label: ref.label ?? null });
      if (!found) return null;
      return { prompt_template_id: found.promptId, prompt_name: found.promptName, version_number: found.versionNumber, metadata: found.version.metadata ?? {} };
    },
    baseUrl(workspaceId, provider) {
      const url = deps.providers.connect(workspaceId, provider)?.baseUrl;
      return url ? redactUrl(url) : null;
    },
  };
  const runs = createReportRunService({ reports, cells, writer, datasets, runner: () => runner, pipelines, manifest, now });
  const sandbox = createSandbox();
  const runner = createRunner({
    reports, cells, writer, now, concurrency, log: deps.log,
    datasets: {
      rowCount: (ws, id) => deps.datasets.version(ws, id).row_count,
      columnNames: (ws, id) => deps.datasets.version(ws, id).column_names,
      rows: datasets.rows,
    },
    tools: { llm, prompts, sandbox, fetch: deps.outbound },
    scoreOf: (report) => runs.scoreOf(report),
  });

  const preview = createReportPreview({
    reports, pipelines, datasets, tools: { llm, prompts, sandbox, fetch: deps.outbound }, concurrency, timeoutMs: previewTimeoutMs, now, log: deps.log,
  });

  return {
    reports: pipelines,
    runs,
    preview,
    start: () => runner.resumeAll(),
    // The runs are aborted first (runner.stop() aborts before it awaits), so a cell the closing
    // sandbox cuts short is not recorded and the run resumes it at the next start.
    stop: async () => {
      await Promise.all([runner.stop(), sandbox.close()]);
    },
  };
}

/** An evaluation's LLM call as a logged request, tagged with its report. */
function ownCall(call: LlmCallLog): OwnCall {
  const text = (t: string) => [{ type: 'text' as const, text: t }];
  return {
    provider: call.provider,
    model: call.model,
    input: { type: 'chat', messages: call.messages.map((m) => ({ role: m.role, content: text(m.content) })) },
    output: { type: 'chat', messages: call.output === null ? [] : [{ role: 'assistant', content: text(call.output) }] },
    startedAt: call.startedAt,
    endedAt: call.endedAt,
    parameters: call.parameters,
    tags: call.tags,
    metadata: call.metadata,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    priced: call.priced,
    functionName: 'promptledger.evaluation',
    status: call.error ? 'ERROR' : 'SUCCESS',
    errorMessage: call.error?.slice(0, 1024) ?? null,
  };
}
