import { AppError, invalidField, notFound } from '../errors';
import type { FetchBody, ListQuery, PublishBody } from '../schemas/prompts';
import type { PromptStore, PromptTemplate, PromptVersion, ReleaseLabel } from '../store/prompts';
import type { Writer } from '../store/writer';
import { templateFormats } from '../templates';
import { templateTexts } from '../templates/render-prompt';
import { pageFields } from './page-fields';
import type { PromptLinks, PromptVersionView } from './prompt-links';
import { prepareForUse, providerFields, type PreparedPrompt, type UseOptions } from './prompt-use';
import type { ProviderService } from './providers';

export interface PromptServiceDeps {
  store: PromptStore;
  providers: ProviderService;
  writer: Writer;
  now: () => number;
}

/** Which version of a template: a number, a label, or neither (`production`, else the latest). */
export interface VersionSelector {
  version?: number | null;
  label?: string | null;
}

/** A template named for use (the evaluation engine's `template: {name, version_number?, label?}`). */
export interface TemplateRef {
  name: string;
  version_number?: number | null;
  label?: string | null;
}

export const DEFAULT_LABEL = 'production';

const isDigits = (s: string) => /^\d+$/.test(s);

export function createPromptService({ store, providers, writer, now }: PromptServiceDeps) {
  function findTemplate(workspaceId: number, identifier: string): PromptTemplate {
    const template = isDigits(identifier) ? store.templateById(workspaceId, Number(identifier)) : store.templateByName(workspaceId, identifier);
    if (!template) throw notFound(`Prompt template '${identifier}'`);
    return template;
  }

  function pickVersion(template: PromptTemplate, selector: VersionSelector, where: 'body' | 'query'): PromptVersion {
    if (selector.version != null && selector.label != null) {
      throw invalidField([where, 'label'], 'Give either a version or a label, not both');
    }
    if (selector.version != null) {
      const version = store.version(template.id, selector.version);
      if (!version) throw notFound(`Version ${selector.version} of prompt template '${template.name}'`);
      return version;
    }
    const label = store.label(template.id, selector.label ?? DEFAULT_LABEL);
    if (label) return store.version(template.id, label.version_number)!;
    if (selector.label != null) throw notFound(`Label '${selector.label}' of prompt template '${template.name}'`);
    return store.version(template.id, template.latest_version)!;
  }

  const content = ({ prompt_template, metadata, provider_id }: PromptVersion) => ({ prompt_template, metadata, provider_id });

  /** A template at one version, as the raw fetch and the list show it (kwargs unrendered). */
  function item(t: PromptTemplate, v: PromptVersion, labels: string[]) {
    const prepared = prepareForUse(providers, t.workspace_id, content(v), { skip_input_variable_rendering: true });
    return {
      id: t.id,
      prompt_name: t.name,
      prompt_template: prepared.prompt_template,
      metadata: prepared.metadata,
      commit_message: v.commit_message,
      llm_kwargs: prepared.llm_kwargs,
      version: v.version_number,
      prompt_version_id: v.id,
      release_labels: labels,
      tags: t.tags,
      folder_id: t.folder_id,
      workspace_id: t.workspace_id,
      created_at: v.created_at,
    };
  }

  function linkedProviderId(workspaceId: number, version: PublishBody['prompt_version']): number | null {
    if (version.provider_id != null) {
      if (!providers.byId(workspaceId, version.provider_id)) throw notFound('Provider');
      return version.provider_id;
    }
    for (const key of ['inference_client_name', 'provider_base_url_name'] as const) {
      const name = version[key];
      if (name == null) continue;
      const provider = providers.byName(workspaceId, name);
      if (!provider) throw invalidField(['body', 'prompt_version', key], `No provider named '${name}' in this workspace`);
      return provider.id;
    }
    return null;
  }

  const labelView = (l: ReleaseLabel) => ({
    id: l.id,
    name: l.name,
    prompt_id: l.template_id,
    prompt_version_id: l.version_id,
    prompt_version_number: l.version_number,
    created_at: l.created_at,
    updated_at: l.updated_at,
  });

  function requireVersion(template: PromptTemplate, number: number): PromptVersion {
    const version = store.version(template.id, number);
    if (!version) throw notFound(`Version ${number} of prompt template '${template.name}'`);
    return version;
  }

  const links: PromptLinks = {
    resolve(workspaceId, link) {
      const template =
        link.promptId != null ? store.templateById(workspaceId, link.promptId) : link.promptName ? store.templateByName(workspaceId, link.promptName) : undefined;
      if (!template) return null;
      let version: PromptVersion | undefined;
      if (link.versionNumber != null) version = store.version(template.id, link.versionNumber);
      else if (link.label != null) {
        const label = store.label(template.id, link.label);
        version = label ? store.version(template.id, label.version_number) : undefined;
      } else version = store.version(template.id, template.latest_version);
      if (!version) return null;
      return { promptId: template.id, promptName: template.name, versionId: version.id, versionNumber: version.version_number, version: versionView(version) };
    },
    version(workspaceId, versionId) {
      const version = store.versionInWorkspace(workspaceId, versionId);
      return version ? versionView(version) : null;
    },
  };

  function versionView(v: PromptVersion): PromptVersionView {
    return { prompt_template: v.prompt_template, commit_message: v.commit_message, metadata: v.metadata };
  }

  return {
    links,

    /** `POST /rest/prompt-templates`: a new immutable version (and the template on first use). */
    async publish(workspaceId: number, body: PublishBody) {
      const template = body.prompt_version.prompt_template as Record<string, unknown>;
      for (const { text, format, path } of templateTexts(template)) {
        const problem = templateFormats[format].check(text);
        if (problem) throw invalidField(['body', 'prompt_version', 'prompt_template', ...path], `Not a valid ${format} template: ${problem}`);
      }
      const labels = [...new Set(body.release_labels ?? [])];
      const name = body.prompt_template.prompt_name;
      return writer.write(() => {
        const folderId = body.prompt_template.folder_id ?? null;
        if (folderId !== null && !store.folderExists(workspaceId, folderId)) {
          throw notFound('Folder');
        }
        const providerId = linkedProviderId(workspaceId, body.prompt_version);
        const at = now();
        const existing = store.templateByName(workspaceId, name);
        const tags = body.prompt_template.tags ?? (existing?.tags ?? []);
        const templateId = existing?.id ?? store.insertTemplate({ workspaceId, name, folderId, tags, now: at });
        const versionNumber = (existing?.latest_version ?? 0) + 1;
        const metadata = body.prompt_version.metadata ?? {};
        const versionId = store.insertVersion({
          template_id: templateId,
          version_number: versionNumber,
          prompt_template: template,
          commit_message: body.prompt_version.commit_message ?? null,
          metadata,
          provider_id: providerId,
          created_at: at,
        });
        store.touchTemplate(templateId, {
          latestVersion: versionNumber,
          tags,
          tagsChanged: existing !== undefined && body.prompt_template.tags != null,
          folderId: folderId ?? existing?.folder_id ?? null,
          now: at,
        });
        for (const label of labels) {
          const current = store.label(templateId, label);
          if (current) store.moveLabel(current.id, versionId, at);
          else store.insertLabel({ workspaceId, templateId, name: label, versionId, now: at });
        }
        return {
          id: templateId,
          prompt_name: name,
          prompt_version_id: versionId,
          version_number: versionNumber,
          tags,
          release_labels: labels,
          prompt_template: template,
          metadata,
          commit_message: body.prompt_version.commit_message ?? null,
          folder_id: folderId ?? existing?.folder_id ?? null,
        };
      });
    },

    /** `POST /prompt-templates/{name-or-id}`: the version rendered and ready to send. */
    fetchForUse(workspaceId: number, identifier: string, body: FetchBody) {
      const template = findTemplate(workspaceId, identifier);
      const version = pickVersion(template, body, 'body');
      const prepared = prepareForUse(providers, workspaceId, content(version), body);
      return {
        id: template.id,
        prompt_name: template.name,
        tags: template.tags,
        workspace_id: workspaceId,
        version: version.version_number,
        prompt_version_id: version.id,
        prompt_template: prepared.prompt_template,
        metadata: prepared.metadata,
        commit_message: version.commit_message,
        llm_kwargs: prepared.llm_kwargs,
        ...providerFields(prepared.provider),
        snippets: [],
        warning: null,
      };
    },

    /**
     * For the evaluation engine: a template version by name (and version number or label, default
     * `production` then latest), rendered with `variables` into provider-ready kwargs.
     */
    prepare(workspaceId: number, ref: TemplateRef, options: UseOptions = {}): PreparedPrompt & { prompt_id: number; prompt_version_id: number; version_number: number } {
      const template = findTemplate(workspaceId, ref.name);
      const version = pickVersion(template, { version: ref.version_number, label: ref.label }, 'body');
      return { ...prepareForUse(providers, workspaceId, content(version), options), prompt_id: template.id, prompt_version_id: version.id, version_number: version.version_number };
    },

    /** `GET /prompt-templates/{name-or-id}`: one stored version, unrendered. */
    getRaw(workspaceId: number, identifier: string, selector: VersionSelector) {
      const template = findTemplate(workspaceId, identifier);
      const version = pickVersion(template, selector, 'query');
      return item(template, version, store.labelNames([version.id]).get(version.id)!);
    },

    /** `GET /prompt-templates`: page envelope, newest first; `label` shows the labelled version. */
    list(workspaceId: number, query: ListQuery) {
      const filter = { label: query.label, name: query.name, tags: query.tags };
      const total = store.count(workspaceId, filter);
      const rows = store.list(workspaceId, filter, query.per_page, (query.page - 1) * query.per_page);
      const labels = store.labelNames(rows.map((r) => r.v.id));
      return page(rows.map((r) => item(r, r.v, labels.get(r.v.id)!)), query, total);
    },

    /** Version history, newest first, with the labels each version carries. */
    versions(workspaceId: number, identifier: string, query: { page: number; per_page: number }) {
      const template = findTemplate(workspaceId, identifier);
      const rows = store.versions(template.id, query.per_page, (query.page - 1) * query.per_page);
      const labels = store.labelNames(rows.map((v) => v.id));
      const items = rows.map((v) => ({
        id: v.id,
        prompt_id: template.id,
        version_number: v.version_number,
        prompt_template: v.prompt_template,
        commit_message: v.commit_message,
        metadata: v.metadata,
        release_labels: labels.get(v.id)!,
        created_at: v.created_at,
      }));
      return page(items, query, template.latest_version);
    },

    async archive(workspaceId: number, identifier: string) {
      await writer.write(() => {
        const template = findTemplate(workspaceId, identifier);
        store.archive(workspaceId, template.id, now());
      });
    },

    labels(workspaceId: number, identifier: string) {
      const template = findTemplate(workspaceId, identifier);
      return { success: true, release_labels: store.labels(template.id).map(labelView) };
    },

    createLabel(workspaceId: number, promptId: number, name: string, versionNumber: number) {
      return writer.write(() => {
        const template = findTemplate(workspaceId, String(promptId));
        const version = requireVersion(template, versionNumber);
        if (store.label(template.id, name)) {
          throw new AppError('conflict', `Label '${name}' already exists on '${template.name}'; move it with PATCH /prompt-labels/{id}.`);
        }
        const id = store.insertLabel({ workspaceId, templateId: template.id, name, versionId: version.id, now: now() });
        return labelView(store.labelById(workspaceId, id)!);
      });
    },

    moveLabel(workspaceId: number, labelId: number, versionNumber: number) {
      return writer.write(() => {
        const label = store.labelById(workspaceId, labelId);
        if (!label) throw notFound('Label');
        const template = store.templateById(workspaceId, label.template_id)!;
        store.moveLabel(label.id, requireVersion(template, versionNumber).id, now());
        return labelView(store.labelById(workspaceId, labelId)!);
      });
    },

    async deleteLabel(workspaceId: number, labelId: number) {
      await writer.write(() => {
        if (!store.labelById(workspaceId, labelId)) throw notFound('Label');
        store.deleteLabel(labelId);
      });
    },
  };
}

export type PromptService = ReturnType<typeof createPromptService>;

/** The seed's template lists (Flask-SQLAlchemy's paginate) count no pages when empty. */
function page<T>(items: T[], query: { page: number; per_page: number }, total: number) {
  return { items, ...pageFields(query.page, query.per_page, total), ...(total === 0 ? { pages: 0 } : {}) };
}
