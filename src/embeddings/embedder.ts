/**
 * Turns texts into fixed-length vectors. RAPS routes publications to subscriptions by the cosine
 * similarity of these vectors, so every vector an embedder returns has `dimensions` entries.
 *
 * @example
 * const embedder = createHashedNgramEmbedder();
 * const [vector] = await embedder.embed(['integer arithmetic, sums and products']);
 */
export interface Embedder {
  /** Short name for logs and reports, e.g. `hashed-ngram` or `openai-compatible:nomic-embed-text`. */
  readonly name: string;
  /** Length of every returned vector (≥ 1). */
  readonly dimensions: number;
  /** Embeds each text; the result has one vector per input text, in input order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
