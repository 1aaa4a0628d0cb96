// Deterministic, varied log content for benchmarks: a 4,000-word pseudo-vocabulary with a Zipf-ish
// skew plus CJK phrases, so text search and filters match realistic fractions of the rows.
const syllables = ['ka', 'lo', 'mi', 'ren', 'to', 'sa', 'vi', 'der', 'qu', 'an', 'el', 'po', 'nix', 'tur', 'bel', 'gor'];
export const vocabulary = Array.from({ length: 4000 }, (_, i) => {
  let w = '';
  for (let n = i + 7; w.length < 5 || n > 0; n = Math.floor(n / 16)) w += syllables[n % 16];
  return w;
});
const cjk = ['東京タワー', '天気予報', '北京是中国的首都', '機械学習モデル', '数据库索引', 'こんにちは世界'];

/** Small fast PRNG so every run generates the same corpus. */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

export function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let k = 0; k < words; k++) {
    const r = random();
    out.push(r < 0.01 ? cjk[Math.floor(random() * cjk.length)] : vocabulary[Math.floor(vocabulary.length * r * r)]);
  }
  return out.join(' ');
}

/** A ~2 KB chat log: system + user + assistant, tags, metadata, tokens, price. */
export function logRecord(i: number, startMs: number) {
  const random = rng(i * 2654435761);
  const latency = Math.round(200 + 3000 * random() ** 3);
  return {
    provider: i % 5 === 0 ? 'anthropic' : 'openai',
    model: ['gpt-4o', 'gpt-4o-mini', 'gpt-4o-mini', 'claude-sonnet-4', 'gpt-4.1'][i % 5],
    input: {
      type: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: `You are a helpful assistant. ${sentence(random, 20)}` }] },
        { role: 'user', content: [{ type: 'text', text: sentence(random, 80) }] },
      ],
    },
    output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: sentence(random, 90) }] }] },
    start: startMs,
    end: startMs + latency,
    latency,
    parameters: { temperature: 0.7, max_tokens: 512 },
    tags: ['prod', `team-${i % 10}`, ...(i % 1000 === 0 ? ['rare'] : [])],
    metadata: { user_id: `u${i % 1000}`, session: `s${i % 5000}`, env: i % 4 ? 'prod' : 'staging' },
    inputTokens: 150 + (i % 200),
    outputTokens: 100 + (i % 300),
    price: 0.0001 * (1 + (i % 20)),
    score: i % 3 === 0 ? i % 101 : null,
    status: i % 97 === 0 ? 'ERROR' : 'SUCCESS',
  };
}

const words = 'the quick brown fox jumps over a lazy dog while models answer prompts about weather travel code and 東京 data'.split(' ');

/** `bench/ingest.ts`'s realistic ~2 KB chat log body, different each time so the text index does real work. */
export function ingestBody(i: number): string {
  const sentence = (n: number) => Array.from({ length: n }, (_, k) => words[(i * 7 + k * 13) % words.length]).join(' ');
  return JSON.stringify({
    provider: 'openai',
    model: i % 3 ? 'gpt-4o-mini' : 'gpt-4o',
    input: {
      type: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: `You are assistant #${i % 17}. ${sentence(40)}` }] },
        { role: 'user', content: [{ type: 'text', text: `Request ${i}: ${sentence(90)}` }] },
      ],
    },
    output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: `Answer ${i}: ${sentence(100)}` }] }] },
    request_start_time: 1_762_000_000 + i / 100,
    request_end_time: 1_762_000_000 + i / 100 + 0.4 + (i % 50) / 100,
    parameters: { temperature: 0.7, max_tokens: 512 },
    tags: ['bench', `shard-${i % 10}`],
    metadata: { user_id: `u${i % 1000}`, session: `s${i % 97}` },
    input_tokens: 180 + (i % 40),
    output_tokens: 120 + (i % 60),
    price: 0.00042,
    score: i % 101,
  });
}
