/**
 * The shapes the UI reads, inferred from the zod schemas the server declares its answers with
 * (`response:` on each route; test/openapi.test.ts parses real answers with them), so the UI and
 * the server cannot drift apart. Type-only imports: not one byte of server code reaches the bundle
 * (eslint forbids value imports from src-server here).
 */
import type { z } from 'zod';
import type * as common from '../../src-server/schemas/common';
import type * as datasets from '../../src-server/schemas/datasets';
import type * as explorer from '../../src-server/schemas/explorer';
import type * as folders from '../../src-server/schemas/folders';
import type * as playground from '../../src-server/schemas/playground';
import type * as prices from '../../src-server/schemas/prices';
import type * as prompts from '../../src-server/schemas/prompts';
import type * as providers from '../../src-server/schemas/providers';
import type * as reports from '../../src-server/schemas/reports';
import type * as reportPreview from '../../src-server/schemas/report-preview';
import type * as system from '../../src-server/schemas/system';
import type * as workspaces from '../../src-server/schemas/workspaces';

export type RequestItem = z.infer<typeof explorer.RequestItem>;
export type RequestPage = z.infer<typeof explorer.RequestPage>;
export type RequestStats = z.infer<typeof explorer.RequestStats>;

/** API.md's page envelope around `items`. */
export type Page<T> = z.infer<typeof common.PageFields> & { items: T[] };

export type PromptTemplateBody = z.infer<typeof common.StoredTemplate>;
export type TemplateMessage = Extract<PromptTemplateBody, { type: 'chat' }>['messages'][number];
export type ChatRole = TemplateMessage['role'];
export type TemplateFormat = Extract<PromptTemplateBody, { type: 'completion' }>['template_format'];
export type PromptListItem = z.infer<typeof prompts.TemplateVersion>;
export type PromptVersion = z.infer<typeof prompts.PromptVersion>;
export type ReleaseLabel = z.infer<typeof prompts.ReleaseLabel>;
export type PublishedTemplate = z.infer<typeof prompts.PublishedTemplate>;
export type TemplateForUse = z.infer<typeof prompts.TemplateForUse>;

export type DatasetVersion = z.infer<typeof datasets.DatasetVersion>;
export type DatasetGroup = z.infer<typeof datasets.DatasetGroup>;
export type DatasetRows = z.infer<typeof datasets.DatasetRows>;
export type DatasetGroupPage = z.infer<typeof datasets.DatasetGroupPage>;
export type CreatedDatasetGroup = z.infer<typeof datasets.CreatedDatasetGroup>;
export type PublishedDataset = z.infer<typeof datasets.PublishedDataset>;
export type PublishedFromRequests = z.infer<typeof datasets.PublishedFromRequests>;
export type DatasetVersionPage = z.infer<typeof datasets.DatasetVersionPage>;

export type ReportColumn = z.infer<typeof reports.ReportColumn>;
export type PreviewAnswer = z.infer<typeof reportPreview.PreviewAnswer>;
export type RunStatus = z.infer<typeof reports.RunStatus>;
/** How a run's score reads: % passing, a mean, or an average of both. */
export type ScoreUnit = NonNullable<z.infer<typeof reports.ScoreUnit>>;
export type ReportDetail = z.infer<typeof reports.ReportDetail>;
export type PipelineSummary = z.infer<typeof reports.PipelineSummary>;
export type ReportCell = z.infer<typeof reports.ReportCell>;
export type ReportRows = z.infer<typeof reports.ReportRows>;
export type RunProgress = z.infer<typeof reports.RunProgress>;
export type CreatedReport = z.infer<typeof reports.CreatedReport>;
export type RunStarted = z.infer<typeof reports.RunStarted>;
export type Score = z.infer<typeof reports.Score>;
export type RunManifest = NonNullable<ReportDetail['report']['manifest']>;
export type CompareAnswer = z.infer<typeof reports.CompareAnswer>;

export type ColumnType = z.infer<typeof system.ColumnTypeList>['column_types'][number];
export type SystemInfo = z.infer<typeof system.SystemInfo>;
export type StorageInfo = z.infer<typeof system.StorageInfo>;
export type RetentionSetting = z.infer<typeof system.RetentionSetting>;
export type RetentionPreview = z.infer<typeof system.RetentionPreview>;
export type ApiKey = z.infer<typeof workspaces.ApiKeyList>['api_keys'][number];
export type CreatedApiKey = z.infer<typeof workspaces.CreatedApiKey>;
export type Provider = z.infer<typeof providers.Provider>;
/** A client the server speaks (`GET /api/public/v2/provider-clients`, from its provider registry). */
export type ProviderClientInfo = z.infer<typeof providers.ProviderClientList>['items'][number];
export type ProviderTest = z.infer<typeof providers.ProviderTestAnswer>;
export type PlaygroundRunBody = z.input<typeof playground.PlaygroundRunBody>;
export type PlaygroundAnswer = z.infer<typeof playground.PlaygroundAnswer>;

/** Traces come straight from the server's own types (type-only imports, erased from the bundle). */
export type TraceList = ReturnType<import('../../src-server/services/traces').TraceService['list']>;
export type TraceItem = TraceList['traces'][number];
export type TraceDetail = ReturnType<import('../../src-server/services/traces').TraceService['get']>;
export type TraceSpan = TraceDetail['spans'][number];
export type PriceEntry = z.infer<typeof prices.PriceEntry>;
export type PriceList = z.infer<typeof prices.PriceList>;
export type Folder = z.infer<typeof folders.Folder>;
export type FolderList = z.infer<typeof folders.FolderList>;
