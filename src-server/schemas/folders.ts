import { z } from 'zod';
import { PositiveId, QueryInt } from './common';

export const CreateFolderBody = z.object({
  name: z.string().trim().min(1).max(255),
  parent_id: PositiveId.nullish(),
});

export const FolderListQuery = z.object({
  /** Only the folders directly inside this one; absent lists the whole tree. */
  parent_id: QueryInt(z.number().int().min(1)).optional(),
});
