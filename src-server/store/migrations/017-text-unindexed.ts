// Requests stored but not yet in the text index (store/text-index.ts `createTextQueue`): the
// ingest thread answers a request once its row commits and adds its text to requests_fts later,
// in larger transactions (docs/performance.md, "Ingest: text index off the acknowledgement path").
// A row here is written in the request's own transaction and removed in the one that indexes it
// or deletes the request, so after a crash this is the durable list of what is left to index
// (done at the next start, from the stored JSON).
export default /* sql */ `
CREATE TABLE text_unindexed (
  id INTEGER PRIMARY KEY
);
`;
