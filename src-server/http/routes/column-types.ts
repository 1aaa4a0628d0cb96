import { z } from 'zod';
import { columnTypes } from '../../eval/columns/index';
import { ColumnTypeList } from '../../schemas/system';
import { route, type Route } from '../route';

type ColumnTypeDocument = Array<{ id: string; description: string; config_schema: Record<string, unknown> }>;

/**
 * The evaluation column types with their configuration as JSON Schema, so the UI derives each
 * type's form from the same zod schema that validates `POST /report-columns` (STYLE rule 3). The
 * output side is used: the input side of a schema that renames alias keys first is opaque.
 */
export function columnTypeRoutes(): Route[] {
  // Built at the first request, not at start: the 22 schemas' conversion was ~6 % of a start's
  // main-thread time (CPU profile), and a server that logs requests may never be asked.
  let document: ColumnTypeDocument | undefined;
  const build = (): ColumnTypeDocument =>
    Object.values(columnTypes).map((type) => ({
      id: type.id,
      description: type.description,
      config_schema: z.toJSONSchema(type.config, { io: 'output', unrepresentable: 'any' }),
    }));
  return [
    route({
      method: 'get', path: '/api/public/v2/column-types', summary: 'Evaluation column types, each with its configuration schema', tag: 'Evaluations',
      auth: 'key',
      response: ColumnTypeList,
      handler: () => ({ column_types: (document ??= build()) }),
    }),
  ];
}
