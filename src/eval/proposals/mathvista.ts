import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AgentIdentity } from '../../core/agent-identity.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { DataFormatError, NotFoundError } from '../../core/errors.js';
import type { ProposalsDataset, ProposalsRecord, RecordedProposal } from './format.js';
import { parseJsonLine, readJsonFile, readLines } from './read-lines.js';

/** One MathVista item as `items.jsonl` gives it (the fields the loader uses). */
interface MathVistaItem {
  readonly question: string;
  readonly choices: readonly string[] | null;
  readonly answer: string;
  readonly questionType: string;
  readonly answerType: string;
}

/**
 * Answer kind of a MathVista item from its declared `question_type` and `answer_type`:
 * multiple choice → `choice` (the option text becomes its letter), `integer`/`float` → `number`,
 * `list` → `literal` (answers such as `[2014, 2016]`), anything else → `exact`.
 */
export function mathVistaKind(questionType: string, answerType: string): AnswerKind {
  if (questionType === 'multi_choice') return 'choice';
  if (answerType === 'integer' || answerType === 'float') return 'number';
  if (answerType === 'list') return 'literal';
  return 'exact';
}

const letterOf = (index: number): string => String.fromCharCode(65 + index);

function readAgents(file: string): AgentIdentity[] {
  if (!existsSync(file))
    throw new NotFoundError({
      entity: 'file',
      id: file,
      message: `file not found: ${file} (the MathVista directory needs a models.json)`,
    });
  const value = readJsonFile(file);
  const agents = (value as { agents?: unknown })?.agents;
  if (!Array.isArray(agents))
    throw new DataFormatError({ file, message: 'expected an object with an "agents" array of { agent, base_model }' });
  const seen = new Map<string, number>();
  return agents.map((entry: unknown, index) => {
    const { agent, base_model: model } = (entry ?? {}) as { agent?: unknown; base_model?: unknown };
    if (typeof agent !== 'string' || agent.length === 0)
      throw new DataFormatError({
        file,
        message: `agents[${index}].agent must be a non-empty string, got ${JSON.stringify(agent)}`,
      });
    const first = seen.get(agent);
    if (first !== undefined)
      throw new DataFormatError({
        file,
        message: `agents[${index}].agent ${JSON.stringify(agent)} repeats agents[${first}]; list each agent once`,
      });
    seen.set(agent, index);
    if (model !== undefined && typeof model !== 'string')
      throw new DataFormatError({
        file,
        message: `agents[${index}].base_model must be a string, got ${JSON.stringify(model)}`,
      });
    return { id: agent, model: model ?? agent };
  });
}

/**
 * Loads the MathVista directory (`items.jsonl` + `proposals.jsonl` + `models.json`). Each task's kind
 * comes from the item's `question_type` and `answer_type` ({@link mathVistaKind}). A proposal's answer
 * is MathVista's normalised `prediction` (what its `true_false` flag graded), its text the
 * `extraction`; for multiple choice, option texts become letters. Clone group = `base_model`. An
 * `items.jsonl` or `proposals.jsonl` without any record throws {@link DataFormatError}.
 *
 * @example
 * const dataset = await loadMathVista('../shared/data/mathvista-testmini');
 */
export async function loadMathVista(directory: string): Promise<ProposalsDataset> {
  const itemsFile = join(directory, 'items.jsonl');
  const proposalsFile = join(directory, 'proposals.jsonl');
  const agents = readAgents(join(directory, 'models.json'));
  const known = new Set(agents.map((agent) => agent.id));
  const items = new Map<string, MathVistaItem>();
  const itemLines = new Map<string, number>();
  for await (const numbered of readLines(itemsFile, {
    expected: 'one JSON object per item ({ pid, question, choices, answer, question_type, answer_type })',
  })) {
    const value = parseJsonLine(itemsFile, numbered) as Record<string, unknown> | null;
    const fail = (message: string) => new DataFormatError({ file: itemsFile, line: numbered.line, message });
    if (typeof value !== 'object' || value === null) throw fail('expected a JSON object per line');
    if (typeof value.pid !== 'string') throw fail(`"pid" must be a string, got ${JSON.stringify(value.pid)}`);
    const earlier = itemLines.get(value.pid);
    if (earlier !== undefined)
      throw fail(`duplicate pid ${JSON.stringify(value.pid)} (first on line ${earlier}); each item must appear once`);
    itemLines.set(value.pid, numbered.line);
    if (typeof value.answer !== 'string') throw fail(`"answer" must be a string, got ${JSON.stringify(value.answer)}`);
    if (typeof value.question_type !== 'string' || typeof value.answer_type !== 'string')
      throw fail('"question_type" and "answer_type" must be strings');
    const choices = value.choices;
    if (
      choices !== null &&
      choices !== undefined &&
      !(Array.isArray(choices) && choices.every((choice) => typeof choice === 'string'))
    )
      throw fail('"choices" must be a list of strings or null');
    if (value.question_type === 'multi_choice' && !Array.isArray(choices))
      throw fail('a multi_choice item needs its "choices"');
    items.set(value.pid, {
      question: typeof value.question === 'string' ? value.question : '',
      choices: (choices as string[] | null | undefined) ?? null,
      answer: value.answer,
      questionType: value.question_type,
      answerType: value.answer_type,
    });
  }
  const tasks: ProposalsRecord[] = [];
  const skipped: Record<string, number> = {};
  const seen = new Set<string>();
  for await (const numbered of readLines(proposalsFile, {
    expected: 'one JSON object per item ({ pid, proposals })',
  })) {
    const value = parseJsonLine(proposalsFile, numbered) as Record<string, unknown> | null;
    const fail = (message: string) => new DataFormatError({ file: proposalsFile, line: numbered.line, message });
    if (typeof value !== 'object' || value === null) throw fail('expected a JSON object per line');
    const pid = value.pid;
    if (typeof pid !== 'string') throw fail(`"pid" must be a string, got ${JSON.stringify(pid)}`);
    if (seen.has(pid)) throw fail(`duplicate pid ${JSON.stringify(pid)}`);
    seen.add(pid);
    const item = items.get(pid);
    if (item === undefined) throw fail(`pid ${pid} has no item in ${itemsFile}`);
    const kind = mathVistaKind(item.questionType, item.answerType);
    // Multiple choice: the option text becomes its letter; a text that is no option stays as written
    // (the choice kind reads it as unparseable).
    const asAnswer = (text: string): string => {
      if (kind !== 'choice' || item.choices === null) return text;
      const index = item.choices.indexOf(text);
      return index === -1 ? text : letterOf(index);
    };
    const raw = value.proposals;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw fail('"proposals" must be an object mapping agent → { extraction, prediction, correct }');
    const proposals: Record<string, RecordedProposal> = {};
    for (const [agent, entry] of Object.entries(raw as Record<string, unknown>)) {
      if (!known.has(agent))
        throw fail(`agent ${JSON.stringify(agent)} is not listed in models.json; add it there (with its base_model)`);
      const { extraction, prediction, correct } = (entry ?? {}) as {
        extraction?: unknown;
        prediction?: unknown;
        correct?: unknown;
      };
      if (prediction !== null && typeof prediction !== 'string')
        throw fail(`"proposals.${agent}.prediction" must be a string or null, got ${JSON.stringify(prediction)}`);
      // Two records of the source have no prediction and no flag: no answer, which counts as wrong.
      if (typeof correct !== 'boolean' && !(correct === null && prediction === null))
        throw fail(`"proposals.${agent}.correct" must be true or false, got ${JSON.stringify(correct)}`);
      proposals[agent] = {
        answer: prediction === null ? null : asAnswer(prediction),
        correct: correct === true,
        ...(typeof extraction === 'string' ? { text: extraction } : {}),
      };
    }
    if (Object.keys(proposals).length === 0) {
      skipped.noProposals = (skipped.noProposals ?? 0) + 1;
      continue;
    }
    const letters =
      item.choices === null
        ? ''
        : `\n${item.choices.map((choice, index) => `${letterOf(index)}. ${choice}`).join('\n')}`;
    tasks.push({
      id: pid,
      kind,
      prompt: `${item.question}${letters}`,
      reference: asAnswer(item.answer),
      ...(kind === 'choice' && item.choices !== null
        ? { options: Math.max(2, Math.min(26, item.choices.length)) }
        : {}),
      proposals,
    });
  }
  return {
    schemaVersion: 1,
    name: basename(directory),
    format: 'mathvista',
    agents,
    tasks,
    skipped,
    correctness: 'flags',
    kindSource: 'items.jsonl "question_type" / "answer_type" per task',
  };
}
