/**
 * The page fields of API.md's page envelope, beside a list's items (named `items`, `datasets`,
 * `rows`, …). An empty list has one (empty) page.
 */
export function pageFields(page: number, perPage: number, total: number) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  return {
    page,
    per_page: perPage,
    total,
    pages,
    has_next: page < pages,
    has_prev: page > 1,
    next_num: page < pages ? page + 1 : null,
    prev_num: page > 1 ? page - 1 : null,
  };
}
