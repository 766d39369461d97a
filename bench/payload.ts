// The data every contender traces: ~1 KB JSON input and output per observation, small metadata.

/** A seeded pseudo-random generator (mulberry32), so every run and contender traces the same bytes. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Prose-like text: words of 2 to 9 letters drawn from a fixed 400-word vocabulary, as in real prompts. */
const VOCABULARY: string[] = [];
{
  const next = random(7);
  const letters = "etaoinshrdlcumwfgypbvkjxqz";
  for (let w = 0; w < 400; w++) {
    let word = "";
    const length = 2 + Math.floor(next() * 8);
    for (let c = 0; c < length; c++) word += letters[Math.floor(next() ** 1.6 * letters.length)];
    VOCABULARY.push(word);
  }
}

/** A chat-like message that serialises to roughly 1 KB of JSON. */
function message(seed: number, role: string): Record<string, unknown> {
  const next = random(seed + 1000);
  const words: string[] = [];
  let length = 0;
  while (length < 900) {
    const word = VOCABULARY[Math.floor(next() * VOCABULARY.length)]!;
    words.push(word);
    length += word.length + 1;
  }
  return { role, content: words.join(" "), tokens: words.length, id: `msg-${seed}` };
}

/**
 * A pool of distinct payloads; observation k of the run uses entry k % 256, so no payload repeats within the
 * compression window and serialisation cannot be cached by identity.
 */
export const INPUTS: Record<string, unknown>[] = [];
export const OUTPUTS: Record<string, unknown>[] = [];
for (let i = 0; i < 256; i++) {
  INPUTS.push({ messages: [message(i, "user")], temperature: 0.2 });
  OUTPUTS.push({ choices: [message(i + 100_000, "assistant")], finish: "stop" });
}

export const METADATA = { tenant: "acme", region: "eu-1", attempt: 1, cached: false };

/** Observations per trace: an agent root, then 3 steps, each a chain with a generation and a tool. */
export const OBSERVATIONS_PER_TRACE = 10;
export const STEPS = 3;

/** Scores workload body for score number `i`. */
export function scoreBody(i: number, traceId: string): { name: string; value: number; traceId: string } {
  return { name: i % 2 === 0 ? "quality" : "latency", value: (i % 100) / 100, traceId };
}
