// RAPS broker (Li et al. 2026, arXiv 2602.08009, §3: Distributed Publish-Subscribe Protocol): a
// publication goes to the subscribers whose declared intent is most similar to it,
// sim(p, s_i) = cos(e(p), e(s_i)); recipients are the top-k with sim ≥ floor, after the Bayesian
// reputation overlay removes (or down-ranks) receivers that distrust the publisher: E_i[j] < τ.
import { assertAgentId, type AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import { resolveOptions } from '../../core/options.js';
import type { WeightReason } from '../../core/trace.js';
import {
  assertInRange,
  assertInteger,
  assertKnownOptions,
  assertOneOf,
  defineOptionKeys,
} from '../../core/validate.js';

/** How the broker treats a receiver whose trust in the publisher is below τ. */
export type TrustPolicy = 'filter' | 'down-rank';

/** Options of {@link createBroker}. */
export interface BrokerOptions {
  /** Embedding length of subscriptions and publications (≥ 1). */
  dimensions: number;
  /** Maximum recipients per publication (≥ 1). @default 3 */
  topK?: number;
  /** Minimum cosine similarity for a subscriber to be considered, in [-1, 1]. @default 0.05 */
  floor?: number;
  /** Trust threshold τ in [0, 1]: receivers with E_receiver[publisher] < τ are filtered or down-ranked. @default 0.4 */
  tau?: number;
  /**
   * `filter`: distrusting receivers never get the publication; `down-rank`: their score becomes
   * sim − (1 − trust/τ)·|sim| (sim·trust/τ for sim ≥ 0; always at most sim), so they only get it when
   * few others match. @default 'filter'
   */
  trustPolicy?: TrustPolicy;
  /** Initial capacity in subscriptions (grows by doubling). @default 64 */
  initialCapacity?: number;
  /**
   * Probation, in [0, 1]: with the filter policy, a distrusting receiver that would otherwise make
   * the top-k still gets the publication with this probability (drawn per receiver), so it can
   * re-test a publisher it may have misjudged. 0 = never. @default 0
   */
  probation?: number;
}

/** Trust of `receiver` in `publisher`, in [0, 1] (the receiver's Beta belief E[p]). */
export type TrustLookup = (receiver: AgentId, publisher: AgentId) => number;

/** One routing decision: the recipients, best first, with their reasons. */
export interface RouteDecision {
  /** Agent that published the message; never among its recipients. */
  readonly publisher: AgentId;
  /** Recipients, best score first. */
  readonly recipients: readonly AgentId[];
  /** One reason per recipient (components: similarity, trust, score). */
  readonly reasons: readonly WeightReason[];
  /**
   * Receivers kept away by distrust (E_receiver[publisher] < τ, no delivery): each would have been
   * a recipient had it trusted the publisher (its similarity beats the k-th recipient's score, or
   * fewer than k were found), and was removed (filter) or pushed out of the top-k (down-rank).
   * Subscription order, not scan order, decides ties; receivers on probation are not listed.
   */
  readonly distrusted: readonly AgentId[];
  /** One reason per `distrusted` receiver, in the same order (components: similarity, trust). */
  readonly distrustReasons: readonly WeightReason[];
  /** Subscribers other than the publisher whose similarity is below the floor (never asked for trust), ≥ 0. */
  readonly belowFloor: number;
  /** Subscribers that broadcast would have reached: everyone but the publisher. */
  readonly broadcast: number;
}

const defaults: Required<Omit<BrokerOptions, 'dimensions'>> = {
  topK: 3,
  floor: 0.05,
  tau: 0.4,
  trustPolicy: 'filter',
  initialCapacity: 64,
  probation: 0,
};

const knownBrokerOptions = defineOptionKeys<BrokerOptions>()([
  'dimensions',
  'topK',
  'floor',
  'tau',
  'trustPolicy',
  'initialCapacity',
  'probation',
]);

/**
 * The RAPS broker: subscription vectors in one contiguous Float32Array (row i = subscriber i,
 * L2-normalised on insert), dot products in a tight loop, partial top-k by insertion into a k-slot
 * buffer. Routing cost is O(n·d + n·k) per publication with no allocation per subscriber.
 *
 * @example
 * const broker = createBroker({ dimensions: 384, topK: 3, floor: 0.1, tau: 0.4 });
 * broker.subscribe('a1', vector1);
 * const decision = broker.route('a2', publicationVector, (receiver, publisher) => 0.5);
 */
export function createBroker(options: BrokerOptions) {
  assertKnownOptions('options', options, knownBrokerOptions, 'createBroker');
  assertInteger('options.dimensions', options.dimensions, 1, 1 << 20);
  const resolved = resolveOptions({ ...defaults, dimensions: options.dimensions }, options);
  const { dimensions, topK, floor, tau, trustPolicy, probation } = resolved;
  assertInRange('options.probation', probation, 0, 1);
  assertInteger('options.topK', topK, 1, 1 << 20, 'pass e.g. { topK: 3 }');
  assertInRange('options.floor', floor, -1, 1);
  assertInRange('options.tau', tau, 0, 1);
  assertOneOf('options.trustPolicy', trustPolicy, ['filter', 'down-rank']);
  assertInteger('options.initialCapacity', resolved.initialCapacity, 1, 1 << 24);

  let capacity = resolved.initialCapacity;
  let vectors = new Float32Array(capacity * dimensions);
  const ids: AgentId[] = [];
  const rowOf = new Map<AgentId, number>();
  let scratch = new Float32Array(0);
  // k-slot buffers for partial top-k selection.
  const topRows = new Int32Array(topK);
  const topScores = new Float64Array(topK);
  const topSimilarities = new Float64Array(topK);
  const topTrusts = new Float64Array(topK);

  const checkVector = (parameter: string, vector: ArrayLike<number>): void => {
    if (vector == null || vector.length !== dimensions) {
      throw new InvalidArgumentError({
        parameter,
        value: vector?.length,
        message: `${parameter} must have ${dimensions} entries, got ${String(vector?.length)}; embed with the same embedder the broker was built for`,
      });
    }
    // A NaN entry makes sim NaN, and NaN < floor is false: it would pass every floor and be routed.
    for (let index = 0; index < dimensions; index++) {
      const value = vector[index];
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new InvalidArgumentError({
          parameter: `${parameter}[${index}]`,
          value,
          message: `${parameter}[${index}] must be a finite number, got ${String(value)}; the embedder returned a broken vector (check its provider or input text)`,
        });
    }
  };

  return {
    /** Embedding length. */
    dimensions,
    /** Resolved options. */
    options: { topK, floor, tau, trustPolicy, probation },
    /** Number of subscribers. */
    get size(): number {
      return ids.length;
    },
    /** Subscriber ids in row order. */
    subscribers(): readonly AgentId[] {
      return ids.slice();
    },
    /** Adds or replaces a subscription vector (stored L2-normalised). */
    subscribe(agentId: AgentId, vector: ArrayLike<number>): void {
      assertAgentId('agentId', agentId);
      checkVector('vector', vector);
      let row = rowOf.get(agentId);
      if (row === undefined) {
        if (ids.length === capacity) {
          capacity *= 2;
          const grown = new Float32Array(capacity * dimensions);
          grown.set(vectors);
          vectors = grown;
        }
        row = ids.length;
        ids.push(agentId);
        rowOf.set(agentId, row);
      }
      let squared = 0;
      for (let index = 0; index < dimensions; index++) squared += (vector[index] as number) ** 2;
      const scale = squared > 0 ? 1 / Math.sqrt(squared) : 0;
      const offset = row * dimensions;
      for (let index = 0; index < dimensions; index++) vectors[offset + index] = (vector[index] as number) * scale;
    },
    /**
     * Removes a subscription. The rows after it move up one, so rows stay in subscription order
     * and ties still go to the earlier-subscribed agent (O(n·d), like one routing pass).
     */
    unsubscribe(agentId: AgentId): void {
      const row = rowOf.get(agentId);
      if (row === undefined) throw new NotFoundError({ entity: 'subscriber', id: agentId });
      vectors.copyWithin(row * dimensions, (row + 1) * dimensions, ids.length * dimensions);
      ids.splice(row, 1);
      rowOf.delete(agentId);
      for (let moved = row; moved < ids.length; moved++) rowOf.set(ids[moved] as AgentId, moved);
    },
    /** A copy of one stored (normalised) subscription vector. */
    vectorOf(agentId: AgentId): Float32Array {
      const row = rowOf.get(agentId);
      if (row === undefined) throw new NotFoundError({ entity: 'subscriber', id: agentId });
      return vectors.slice(row * dimensions, (row + 1) * dimensions);
    },
    /**
     * Similarity of the (normalised) publication to every subscriber, in row order; the returned
     * array is reused by the next call.
     */
    similarities(publication: ArrayLike<number>): Float32Array {
      checkVector('publication', publication);
      if (scratch.length < ids.length) scratch = new Float32Array(capacity);
      let squared = 0;
      for (let index = 0; index < dimensions; index++) squared += (publication[index] as number) ** 2;
      const scale = squared > 0 ? 1 / Math.sqrt(squared) : 0;
      const n = ids.length;
      for (let row = 0; row < n; row++) {
        let sum = 0;
        const offset = row * dimensions;
        for (let index = 0; index < dimensions; index++)
          sum += (vectors[offset + index] as number) * (publication[index] as number);
        scratch[row] = sum * scale;
      }
      return scratch;
    },
    /**
     * Routes one publication: recipients are the top-k subscribers (publisher excluded) with
     * sim ≥ floor, ranked by sim (filter policy, distrusting receivers removed) or by
     * sim − (1 − min(1, trust/τ))·|sim| (down-rank policy: sim·trust/τ for sim ≥ 0). Ties go to the earlier-subscribed agent. Dot products
     * and selection run in one pass. `draw(receiver)` in [0, 1) decides probation (see options).
     */
    route(
      publisher: AgentId,
      publication: ArrayLike<number>,
      trust: TrustLookup,
      draw?: (receiver: AgentId) => number,
    ): RouteDecision {
      checkVector('publication', publication);
      let squared = 0;
      for (let index = 0; index < dimensions; index++) squared += (publication[index] as number) ** 2;
      const scale = squared > 0 ? 1 / Math.sqrt(squared) : 0;
      const n = ids.length;
      const publisherRow = rowOf.get(publisher) ?? -1;
      let filled = 0;
      let belowFloor = 0;
      // Receivers whose trust was below τ (row, similarity, trust), checked against the final top-k below.
      const distrustedRows: number[] = [];
      const distrustedSimilarities: number[] = [];
      const distrustedTrusts: number[] = [];
      // Locals keep the hot loop free of closure-variable loads.
      const data = vectors;
      const query = publication instanceof Float32Array ? publication : Float32Array.from(publication);
      const width = dimensions;
      for (let row = 0; row < n; row++) {
        if (row === publisherRow) continue;
        // sim = e(p)·e(s_row) / |e(p)|, subscription rows are unit vectors.
        let sum = 0;
        const offset = row * width;
        for (let index = 0; index < width; index++) sum += (data[offset + index] as number) * (query[index] as number);
        const sim = sum * scale;
        if (sim < floor) {
          belowFloor++;
          continue;
        }
        // Trust only lowers a score, so a candidate that cannot enter the top-k is skipped unasked.
        if (filled === topK && sim <= (topScores[topK - 1] as number)) continue;
        const receiver = ids[row] as AgentId;
        const belief = trust(receiver, publisher);
        let score = sim;
        if (belief < tau) {
          const onProbation =
            trustPolicy === 'filter' && probation > 0 && draw !== undefined && draw(receiver) < probation;
          if (!onProbation) {
            distrustedRows.push(row);
            distrustedSimilarities.push(sim);
            distrustedTrusts.push(belief);
          }
          if (trustPolicy === 'filter' && !onProbation) continue;
          // sim·(trust/τ) for sim ≥ 0; a negative sim is pushed down by the same share (sim·(2 − trust/τ)),
          // so distrust lowers every score (scaling a negative sim by trust/τ < 1 would raise it).
          if (trustPolicy === 'down-rank') score = sim - (1 - belief / tau) * Math.abs(sim);
          if (filled === topK && score <= (topScores[topK - 1] as number)) continue;
        }
        // Insert into the sorted k-slot buffer (descending score, stable for ties).
        let position = filled < topK ? filled++ : topK - 1;
        while (position > 0 && (topScores[position - 1] as number) < score) {
          topScores[position] = topScores[position - 1] as number;
          topRows[position] = topRows[position - 1] as number;
          topSimilarities[position] = topSimilarities[position - 1] as number;
          topTrusts[position] = topTrusts[position - 1] as number;
          position--;
        }
        topScores[position] = score;
        topRows[position] = row;
        topSimilarities[position] = sim;
        topTrusts[position] = belief;
      }
      const recipients: AgentId[] = [];
      const reasons: WeightReason[] = [];
      for (let slot = 0; slot < filled; slot++) {
        const receiver = ids[topRows[slot] as number] as AgentId;
        const sim = topSimilarities[slot] as number;
        const belief = topTrusts[slot] as number;
        recipients.push(receiver);
        reasons.push({
          agentId: receiver,
          weight: topScores[slot] as number,
          components: { similarity: sim, trust: belief, score: topScores[slot] as number },
          note:
            belief < tau
              ? trustPolicy === 'filter'
                ? `probation: trust ${belief.toFixed(3)} < tau ${tau}, delivered to re-test the publisher`
                : `down-ranked: trust ${belief.toFixed(3)} < tau ${tau}`
              : `similarity ${sim.toFixed(3)} >= floor ${floor}, trust ${belief.toFixed(3)} >= tau ${tau}`,
        });
      }
      // Distrust kept a receiver away iff, scored by its similarity alone (as if it trusted the
      // publisher), it would have entered the final top-k: fewer than k recipients, or it beats the
      // k-th (ties to the earlier row). Receivers asked early in the scan whose similarity the final
      // top-k outgrew are not listed, so the list does not depend on the subscription order.
      const distrusted: AgentId[] = [];
      const distrustReasons: WeightReason[] = [];
      const lastScore = topScores[topK - 1] as number;
      const lastRow = topRows[topK - 1] as number;
      distrustedRows.forEach((row, index) => {
        const sim = distrustedSimilarities[index] as number;
        const belief = distrustedTrusts[index] as number;
        const wouldEnter = filled < topK || sim > lastScore || (sim === lastScore && row < lastRow);
        const receiver = ids[row] as AgentId;
        if (!wouldEnter || recipients.includes(receiver)) return;
        distrusted.push(receiver);
        distrustReasons.push({
          agentId: receiver,
          weight: 0,
          components: { similarity: sim, trust: belief },
          note:
            trustPolicy === 'filter'
              ? `filtered: trust ${belief.toFixed(3)} < tau ${tau}, similarity ${sim.toFixed(3)} would have made the top-${topK}`
              : `down-ranked out of the top-${topK}: trust ${belief.toFixed(3)} < tau ${tau}, similarity ${sim.toFixed(3)}`,
        });
      });
      return {
        publisher,
        recipients,
        reasons,
        distrusted,
        distrustReasons,
        belowFloor,
        broadcast: n - (publisherRow >= 0 ? 1 : 0),
      };
    },
  };
}

/** The broker returned by {@link createBroker}. */
export type Broker = ReturnType<typeof createBroker>;
