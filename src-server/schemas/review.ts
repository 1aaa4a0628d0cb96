import { z } from 'zod';

/** API.md §7 "Review": notes up to 10,000 characters. */
export const MAX_NOTE_CHARS = 10_000;

/** `PATCH /api/public/v2/requests/{id}`: scores merge by name, a null removes one; a null or
 * empty note removes the note. */
export const ReviewBody = z.object({
  note: z
    .string()
    .refine((note) => [...note].length <= MAX_NOTE_CHARS, { message: `At most ${MAX_NOTE_CHARS} characters` })
    .nullish(),
  scores: z.record(z.string().min(1).max(255), z.number().int().min(0).max(100).nullable()).optional(),
});
export type ReviewBody = z.output<typeof ReviewBody>;
