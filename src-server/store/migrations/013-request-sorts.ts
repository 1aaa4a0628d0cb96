// The explorer's other orders (API: `sort=latency|cost|tokens|score`, docs/decisions.md). Without
// an index each first page sorts every request: ~1 s at 110,000 requests of the query bench's
// corpus (the table scan alone is 0.7 s of it), ~10 s at a million. With one, a page reads one page.
// Each index holds (workspace, value, id): a few dozen bytes per request beside ~10 KB of row,
// and ingest's cost is dominated by the trigram text index, not by these.
// Unscored requests sort last in both directions, so score needs one expression per direction
// (the same expressions as store/requests.ts sortExpression; SQLite matches them verbatim).
export default /* sql */ `
CREATE INDEX requests_by_latency ON requests(workspace_id, latency_ms, id);
CREATE INDEX requests_by_price ON requests(workspace_id, price, id);
CREATE INDEX requests_by_tokens ON requests(workspace_id, (input_tokens + output_tokens), id);
CREATE INDEX requests_by_score_desc ON requests(workspace_id, coalesce(score, -1), id);
CREATE INDEX requests_by_score_asc ON requests(workspace_id, coalesce(score, 101), id);
`;
