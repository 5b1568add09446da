// Speed of answer canonicalization on the real replay data (ZeroEval MATH Level-5: 721 items x 40
// agents) and agreement with the data's own correctness flags. Run: npm run bench:answers
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { createMathAnswerKind, createNumberAnswerKind } from '../src/core/answers/index.js';
import { dataDir, readFlaggedItems } from '../src/testing/_test-flagged-items.js';
import { median } from './_median.js';

const math = readFlaggedItems('zeroeval-math-l5/proposals.jsonl');
const answers = math.flatMap((item) =>
  Object.values(item.proposals)
    .map((proposal) => proposal.answer)
    .filter((answer): answer is string => answer !== null),
);
console.log(`math-l5: ${math.length} items, ${answers.length} non-null answers, ${new Set(answers).size} distinct`);

// Wall-clock time suffers when other jobs share the cores; CPU time (user + system) of this
// process is printed beside it as the steadier figure.
const cpuMicros = (): number => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};
const coldRuns: number[] = [];
const coldCpu: number[] = [];
const warmRuns: number[] = [];
for (let run = 0; run < 5; run++) {
  const kind = createMathAnswerKind();
  let started = performance.now();
  let cpuStarted = cpuMicros();
  for (const answer of answers) kind.canonicalKey(answer);
  coldRuns.push(((performance.now() - started) * 1000) / answers.length);
  coldCpu.push((cpuMicros() - cpuStarted) / answers.length);
  started = performance.now();
  cpuStarted = cpuMicros();
  for (const answer of answers) kind.canonicalKey(answer);
  warmRuns.push(((performance.now() - started) * 1000) / answers.length);
}
console.log(
  `math canonicalKey, fresh cache (whole pass / answers): median ${median(coldRuns).toFixed(1)} us/call wall, ${median(coldCpu).toFixed(1)} us/call CPU over 5 runs (wall min ${Math.min(...coldRuns).toFixed(1)}, max ${Math.max(...coldRuns).toFixed(1)})`,
);
console.log(`math canonicalKey, warm cache: median ${median(warmRuns).toFixed(2)} us/call`);

// Agreement of our equivalence with the data's flags.
const kind = createMathAnswerKind();
let agreeStrict = 0;
let agreeLenient = 0;
let total = 0;
let oursTrue = 0;
let started = performance.now();
const disagreements: string[] = [];
for (const item of math) {
  for (const proposal of Object.values(item.proposals)) {
    total++;
    const ours = proposal.answer !== null && kind.equivalent(proposal.answer, item.reference);
    if (ours) oursTrue++;
    if (ours === proposal.correct_strict) agreeStrict++;
    else if (disagreements.length < 12)
      disagreements.push(
        `  answer ${JSON.stringify(proposal.answer)} vs reference ${JSON.stringify(item.reference)}: ours ${ours}, strict ${proposal.correct_strict}`,
      );
    if (ours === proposal.correct) agreeLenient++;
  }
}
const equivalentMicros = ((performance.now() - started) * 1000) / total;
console.log(
  `math equivalent vs reference: ${oursTrue}/${total} correct; agrees with correct_strict on ${agreeStrict}/${total} (${((100 * agreeStrict) / total).toFixed(2)} %), with lenient correct on ${agreeLenient}/${total} (${((100 * agreeLenient) / total).toFixed(2)} %); ${equivalentMicros.toFixed(1)} us/call`,
);
console.log('first disagreements with correct_strict:');
for (const line of disagreements) console.log(line);

// Extraction from raw outputs (first 100 items, all agents) against the data's parsed answers.
const raw = gunzipSync(readFileSync(path.join(dataDir, 'zeroeval-math-l5/raw_outputs_first100.jsonl.gz')))
  .toString('utf8')
  .split('\n')
  .filter((line) => line.trim().length > 0)
  .map((line) => JSON.parse(line) as { id: string; model: string; output: string });
const byId = new Map(math.map((item, index) => [String(index), item]));
let sameAsData = 0;
let compared = 0;
started = performance.now();
for (const record of raw) {
  const expected = byId.get(record.id)?.proposals[record.model]?.answer;
  const extracted = kind.extract(record.output);
  if (expected === undefined) continue;
  compared++;
  if (expected === null ? extracted === null : extracted !== null && kind.equivalent(extracted, expected)) sameAsData++;
}
const extractMicros = ((performance.now() - started) * 1000) / raw.length;
console.log(
  `math extract on ${raw.length} raw outputs: equals the data's parsed answer on ${sameAsData}/${compared} (${((100 * sameAsData) / compared).toFixed(2)} %); ${extractMicros.toFixed(1)} us/call`,
);

// GSM8K numbers.
const gsm = readFlaggedItems('zeroeval-gsm8k/proposals.jsonl');
const numberKind = createNumberAnswerKind();
let gsmAgree = 0;
let gsmTotal = 0;
started = performance.now();
for (const item of gsm) {
  for (const proposal of Object.values(item.proposals)) {
    gsmTotal++;
    const ours = proposal.answer !== null && numberKind.equivalent(proposal.answer, item.reference);
    if (ours === proposal.correct) gsmAgree++;
  }
}
console.log(
  `gsm8k number equivalent: agrees with the data's correct flag on ${gsmAgree}/${gsmTotal} (${((100 * gsmAgree) / gsmTotal).toFixed(2)} %); ${(((performance.now() - started) * 1000) / gsmTotal).toFixed(2)} us/call`,
);
