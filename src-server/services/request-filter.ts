import type { RequestFilter } from '../store/requests';

/** The explorer's filters by their API names, as a query string or a JSON body gives them. */
export interface ExplorerFilterFields {
  q?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  provider?: string;
  model?: string;
  prompt_id?: number;
  prompt_version_number?: number;
  status?: string;
  score_min?: number;
  score_max?: number;
  start_time?: number;
  end_time?: number;
  group_id?: number;
  has_note?: boolean;
  scored?: boolean;
  score_name?: string;
}

/** The store's filter for the explorer's: one mapping for the list, exports, deletes and datasets. */
export function requestFilter(f: ExplorerFilterFields): RequestFilter {
  return {
    q: f.q,
    tags: f.tags,
    metadata: f.metadata,
    provider: f.provider,
    model: f.model,
    promptId: f.prompt_id,
    promptVersionNumber: f.prompt_version_number,
    status: f.status,
    scoreMin: f.score_min,
    scoreMax: f.score_max,
    startTime: f.start_time,
    endTime: f.end_time,
    groupId: f.group_id,
    hasNote: f.has_note,
    scored: f.scored,
    scoreName: f.score_name,
  };
}
