import { basename, join } from 'node:path';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { answerKinds, type AnswerKind } from '../../core/answers/answer-kind.js';
import { DataFormatError } from '../../core/errors.js';
import type { ProposalsDataset, ProposalsRecord, RecordedProposal } from './format.js';
import { readModelsJson, type ModelsJson } from './models-json.js';
import { parseJsonLine, readLines } from './read-lines.js';

/**
 * Answer kind of each ZeroEval task tag (`models.json` `task`). GSM8K and CRUXEval declare the kind of
 * the grader their flags come from (`number-zeroeval`: the first number of the answer;
 * `literal-zeroeval`: the quote-stripped text), so that answers share a key exactly when the flags grade
 * them alike. MATH keeps `math`: its grader reads the first number too, which would merge `\frac{3}{4}`
 * with `3`; see docs/answers.md for what that costs against the flags.
 */
export const zeroevalTaskKinds: Readonly<Record<string, AnswerKind>> = {
  'math-l5': 'math',
  math: 'math',
  gsm: 'number-zeroeval',
  crux: 'literal-zeroeval',
};

/**
 * The answer kind a ZeroEval `models.json` declares, and where it was found: its `kind` field, else
 * its `task` tag via {@link zeroevalTaskKinds}, else `exact` as a stated default (the directory's name
 * is never consulted). Throws {@link DataFormatError} for an unknown `kind`.
 */
export function zeroevalKind(models: ModelsJson, file: string): { kind: AnswerKind; source: string } {
  if (models.kind !== undefined) {
    if (!(answerKinds as readonly string[]).includes(models.kind)) {
      throw new DataFormatError({
        file,
        message: `"kind" must be one of ${answerKinds.join(', ')}, got ${JSON.stringify(models.kind)}`,
      });
    }
    return { kind: models.kind as AnswerKind, source: `models.json "kind": "${models.kind}"` };
  }
  const tagged =
    models.task === undefined || !Object.hasOwn(zeroevalTaskKinds, models.task)
      ? undefined
      : zeroevalTaskKinds[models.task];
  if (tagged !== undefined) return { kind: tagged, source: `models.json "task": "${models.task}"` };
  const tag = models.task === undefined ? 'no "task" or "kind"' : `"task": "${models.task}" (no known kind)`;
  return { kind: 'exact', source: `default: models.json has ${tag}; pass --kind to choose` };
}

/**
 * Loads a ZeroEval directory (`proposals.jsonl` + `models.json`, as in `zeroeval-math-l5`,
 * `zeroeval-gsm8k` and `zeroeval-crux`): the answer kind comes from `models.json` ({@link zeroevalKind});
 * each agent's clone group is its `family`; each proposal keeps the dataset's
 * lenient `correct` flag. An agent absent from a task stays absent (the harness counts it as an
 * unparseable proposal); a task with no proposals is counted in `skipped.noProposals`. A `proposals.jsonl`
 * without any record throws {@link DataFormatError}.
 *
 * @example
 * const dataset = await loadZeroEval('../shared/data/zeroeval-math-l5');
 */
export async function loadZeroEval(directory: string): Promise<ProposalsDataset> {
  const modelsFile = join(directory, 'models.json');
  const proposalsFile = join(directory, 'proposals.jsonl');
  const models = readModelsJson(modelsFile);
  const { kind, source: kindSource } = zeroevalKind(models, modelsFile);
  const agents: AgentIdentity[] = models.models.map((entry) => ({
    id: entry.model,
    model: entry.family ?? entry.model,
  }));
  const known = new Set(agents.map((agent) => agent.id));
  const tasks: ProposalsRecord[] = [];
  const skipped: Record<string, number> = {};
  const ids = new Set<string>();
  for await (const numbered of readLines(proposalsFile, {
    expected: 'one JSON object per task ({ id, reference, proposals })',
  })) {
    const value = parseJsonLine(proposalsFile, numbered) as Record<string, unknown> | null;
    const fail = (message: string) => new DataFormatError({ file: proposalsFile, line: numbered.line, message });
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw fail('expected a JSON object per line');
    const id = value.id;
    if (typeof id !== 'string' || id.length === 0)
      throw fail(`"id" must be a non-empty string, got ${JSON.stringify(id)}`);
    if (ids.has(id)) throw fail(`duplicate task id ${JSON.stringify(id)}`);
    ids.add(id);
    if (typeof value.reference !== 'string')
      throw fail(`"reference" must be a string, got ${JSON.stringify(value.reference)}`);
    const raw = value.proposals;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw fail(`"proposals" must be an object mapping agent → { answer, correct }, got ${JSON.stringify(raw)}`);
    const proposals: Record<string, RecordedProposal> = {};
    for (const [agent, entry] of Object.entries(raw as Record<string, unknown>)) {
      if (!known.has(agent))
        throw fail(`agent ${JSON.stringify(agent)} is not listed in ${modelsFile}; add it there (with its family)`);
      const record = entry as { answer?: unknown; correct?: unknown } | null;
      if (typeof record !== 'object' || record === null)
        throw fail(`"proposals.${agent}" must be an object, got ${JSON.stringify(entry)}`);
      if (record.answer !== null && typeof record.answer !== 'string')
        throw fail(`"proposals.${agent}.answer" must be a string or null, got ${JSON.stringify(record.answer)}`);
      if (typeof record.correct !== 'boolean')
        throw fail(`"proposals.${agent}.correct" must be true or false, got ${JSON.stringify(record.correct)}`);
      proposals[agent] = { answer: record.answer, correct: record.correct };
    }
    if (Object.keys(proposals).length === 0) {
      skipped.noProposals = (skipped.noProposals ?? 0) + 1;
      continue;
    }
    tasks.push({
      id,
      kind,
      prompt: typeof value.question === 'string' ? value.question : '',
      reference: value.reference,
      proposals,
    });
  }
  return {
    schemaVersion: 1,
    name: basename(directory),
    format: 'zeroeval',
    agents,
    tasks,
    skipped,
    correctness: 'flags',
    kindSource,
  };
}
