// `npm run bench:broker`: RAPS routing throughput with 1,000 and 10,000 subscribers at 384-dim
// embeddings, next to a plain Float32Array dot-product loop over the same vectors (the bound).
import { performance } from 'node:perf_hooks';
import { createRng } from '../src/core/rng.js';
import { createBroker } from '../src/protocols/pubsub/broker.js';

const dimensions = 384;
const repeats = 15;
const publicationsPerRepeat = 50;

function randomUnitVectors(count: number, seed: number): Float32Array {
  const rng = createRng(seed);
  const data = new Float32Array(count * dimensions);
  for (let row = 0; row < count; row++) {
    let squared = 0;
    for (let index = 0; index < dimensions; index++) {
      const value = rng() * 2 - 1;
      data[row * dimensions + index] = value;
      squared += value * value;
    }
    const scale = 1 / Math.sqrt(squared);
    for (let index = 0; index < dimensions; index++)
      data[row * dimensions + index] = (data[row * dimensions + index] as number) * scale;
  }
  return data;
}

/** The bound: dot products of one publication with every row, nothing else. */
function plainDotLoop(vectors: Float32Array, publication: Float32Array, count: number, scores: Float32Array): void {
  for (let row = 0; row < count; row++) {
    let sum = 0;
    const offset = row * dimensions;
    for (let index = 0; index < dimensions; index++)
      sum += (vectors[offset + index] as number) * (publication[index] as number);
    scores[row] = sum;
  }
}

function median(values: number[]): number {
  const sorted = values.slice().sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

for (const subscribers of [1_000, 10_000]) {
  const vectors = randomUnitVectors(subscribers, 1);
  const publications = randomUnitVectors(publicationsPerRepeat, 2);
  const broker = createBroker({ dimensions, topK: 3, floor: 0, tau: 0.4, initialCapacity: subscribers });
  for (let row = 0; row < subscribers; row++)
    broker.subscribe(`s${row}`, vectors.subarray(row * dimensions, (row + 1) * dimensions));
  const trust = () => 0.5;
  const scores = new Float32Array(subscribers);
  let sink = 0;

  // Bound: the same dot products in a plain loop, no top-k, no trust, no bookkeeping.
  const plain = (publication: Float32Array) => {
    plainDotLoop(vectors, publication, subscribers, scores);
    sink += scores[0] as number;
  };
  const routed = (publication: Float32Array) => {
    sink += broker.route('s0', publication, trust).recipients.length;
  };

  // Plain loop and routing alternate within each repeat, so load from other processes hits both alike.
  const plainTimes: number[] = [];
  const routeTimes: number[] = [];
  const time = (work: (publication: Float32Array) => void): number => {
    const start = performance.now();
    for (let index = 0; index < publicationsPerRepeat; index++)
      work(publications.subarray(index * dimensions, (index + 1) * dimensions));
    return (performance.now() - start) / publicationsPerRepeat;
  };
  for (let repeat = 0; repeat < repeats + 2; repeat++) {
    const plainTime = time(plain);
    const routeTime = time(routed);
    if (repeat >= 2) {
      // the first two repeats warm the JIT
      plainTimes.push(plainTime);
      routeTimes.push(routeTime);
    }
  }
  const plainMs = median(plainTimes);
  const routeMs = median(routeTimes);
  process.stdout.write(
    `${String(subscribers).padStart(6)} subscribers x ${dimensions} dims: route ${routeMs.toFixed(3)} ms/publication (${Math.round(1000 / routeMs)} publications/s), ` +
      `plain dot loop ${plainMs.toFixed(3)} ms (${Math.round(1000 / plainMs)}/s), route/bound = ${(routeMs / plainMs).toFixed(2)}x  [median of ${repeats} x ${publicationsPerRepeat}]${sink === -1 ? '' : ''}\n`,
  );
}
