import { z } from 'zod';
import { IsoDateTime, PositiveId, QueryInt, Success } from './common';

export const CreateFolderBody = z.object({
  name: z.string().trim().min(1).max(255),
  parent_id: PositiveId.nullish(),
});

export const RenameFolderBody = z.object({ name: CreateFolderBody.shape.name });

export const FolderListQuery = z.object({
  /** Only the folders directly inside this one; absent lists the whole tree. */
  parent_id: QueryInt(z.number().int().min(1)).optional(),
});

// Responses

export const Folder = z.object({
  id: z.number().int(),
  name: z.string(),
  parent_id: z.number().int().nullable(),
  workspace_id: z.number().int(),
  created_at: IsoDateTime,
});
export const FolderResponse = z.object({ success: Success, folder: Folder });
export const FolderList = z.object({ success: Success, folders: z.array(Folder) });
