import { basename, join } from 'node:path';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { DataFormatError } from '../../core/errors.js';
import type { ProposalsDataset, ProposalsRecord, RecordedProposal } from './format.js';
import { readModelsJson } from './models-json.js';
import { parseJsonLine, readLines } from './read-lines.js';

/** Splits one CSV row (RFC 4180 quoting); returns `null` for an unterminated quote. */
export function splitCsvRow(row: string): string[] | null {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < row.length; index++) {
    const char = row[index];
    if (quoted) {
      if (char === '"') {
        if (row[index + 1] === '"') {
          cell += '"';
          index++;
        } else quoted = false;
      } else cell += char;
    } else if (char === '"' && cell.length === 0) quoted = true;
    else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  if (quoted) return null;
  cells.push(cell);
  return cells;
}

/**
 * Clone-group key for an MMLU-Pro agent, used only when `models.json` has no `family`: the
 * lower-cased name without `-instruct`/`-chat`/`-hf` and version suffixes, so base and instruct
 * checkpoints of one model (`Meta-Llama-3_1-70B`, `Meta-Llama-3_1-70B-Instruct`) share a group.
 */
export function mmluProFamily(agent: string): string {
  return agent
    .toLowerCase()
    .replace(/-(instruct|chat|hf)\b/g, '')
    .replace(/-v\d+(\.\d+)?\b/g, '')
    .replace(/-+$/, '');
}

/** The option letter of a 0-based index (`0` → `A`). */
const letterOf = (index: number): string => String.fromCharCode(65 + index);

/**
 * Loads the MMLU-Pro directory (`preds.csv` + `items.jsonl.gz` + `models.json`): `choice` tasks with
 * letter answers. A prediction cell is one letter, empty or `NA`:
 * - a letter that names one of the item's options is the answer;
 * - a letter past the item's options (`J` for an item with options A-D) names no option, so it is
 *   an unparseable proposal like an empty cell (`answer: null`, wrong), with the letter kept as its
 *   `text` and counted in `skipped.predictionsBeyondOptions` (the source's extractor reads any letter
 *   A-J from the model's reply, so short items get such letters);
 * - an empty cell is an unparseable proposal (`answer: null`, wrong);
 * - `NA` means the agent has no record for the item (absent);
 * - anything else is a malformed file and throws {@link DataFormatError} naming the line.
 *
 * The reference `answer` must name one of the item's options. Correctness is the dataset's rule,
 * letter == answer, stored as the `correct` flag. An empty `preds.csv` or `items.jsonl.gz` throws.
 *
 * @example
 * const dataset = await loadMmluPro('../shared/data/mmlu-pro');
 */
export async function loadMmluPro(directory: string): Promise<ProposalsDataset> {
  const predsFile = join(directory, 'preds.csv');
  const itemsFile = join(directory, 'items.jsonl.gz');
  const modelsFile = join(directory, 'models.json');
  const models = readModelsJson(modelsFile);
  const families = new Map(models.models.map((entry) => [entry.model, entry.family ?? mmluProFamily(entry.model)]));
  const items = new Map<string, { question: string; options: string[] }>();
  const itemLines = new Map<string, number>();
  for await (const numbered of readLines(itemsFile, {
    expected: 'one JSON object per item ({ question_id, question, options })',
  })) {
    const value = parseJsonLine(itemsFile, numbered) as {
      question_id?: unknown;
      question?: unknown;
      options?: unknown;
    };
    if (value === null || (typeof value.question_id !== 'number' && typeof value.question_id !== 'string')) {
      throw new DataFormatError({
        file: itemsFile,
        line: numbered.line,
        message: `"question_id" must be a number or string, got ${JSON.stringify(value?.question_id)}`,
      });
    }
    if (!Array.isArray(value.options))
      throw new DataFormatError({
        file: itemsFile,
        line: numbered.line,
        message: '"options" must be a list of strings',
      });
    const questionId = String(value.question_id);
    const earlier = itemLines.get(questionId);
    if (earlier !== undefined)
      throw new DataFormatError({
        file: itemsFile,
        line: numbered.line,
        message: `duplicate question_id ${questionId} (first on line ${earlier}); each item must appear once`,
      });
    itemLines.set(questionId, numbered.line);
    items.set(questionId, {
      question: typeof value.question === 'string' ? value.question : '',
      options: value.options.map(String),
    });
  }
  let header: string[] | null = null;
  let agentColumns: string[] = [];
  const tasks: ProposalsRecord[] = [];
  const skipped: Record<string, number> = {};
  const seen = new Set<string>();
  for await (const numbered of readLines(predsFile, {
    expected: 'a header row question_id,category,answer,<agents...>, then one row per item',
  })) {
    const fail = (message: string) => new DataFormatError({ file: predsFile, line: numbered.line, message });
    // A CR that is no CRLF would end up in a cell (`C\r` reads as `C` once trimmed, `1\r` as no known
    // question): refused, as the lines of a file that only uses CR would be read as one row.
    const carriage = numbered.text.indexOf('\r');
    if (carriage !== -1)
      throw fail(
        `a raw carriage return (\\r) at column ${carriage + 1}; rows end at LF or CRLF only and no cell may hold a CR: remove it, or convert a file with classic Mac (CR) line ends first, e.g. tr '\\r' '\\n' < old.csv > preds.csv`,
      );
    const cells = splitCsvRow(numbered.text);
    if (cells === null) throw fail('unterminated quoted cell');
    if (header === null) {
      header = cells;
      if (cells[0] !== 'question_id' || cells[1] !== 'category' || cells[2] !== 'answer') {
        throw fail(`expected the header to start with question_id,category,answer, got ${cells.slice(0, 3).join(',')}`);
      }
      agentColumns = cells.slice(3);
      agentColumns.forEach((agent, index) => {
        if (!families.has(agent)) throw fail(`agent column ${JSON.stringify(agent)} is not listed in ${modelsFile}`);
        if (agentColumns.indexOf(agent) !== index)
          throw fail(
            `agent column ${JSON.stringify(agent)} appears twice (columns ${agentColumns.indexOf(agent) + 4} and ${index + 4}); keep one column per agent`,
          );
      });
      continue;
    }
    if (cells.length !== header.length) throw fail(`expected ${header.length} cells, got ${cells.length}`);
    const [questionId, , reference] = cells as [string, string, string];
    if (!/^[A-Z]$/.test(reference)) throw fail(`"answer" must be one letter A-Z, got ${JSON.stringify(reference)}`);
    if (seen.has(questionId)) throw fail(`duplicate question_id ${questionId}`);
    seen.add(questionId);
    const item = items.get(questionId);
    if (item === undefined) throw fail(`question_id ${questionId} has no item in ${itemsFile}`);
    const optionCount = item.options.length;
    if (reference.charCodeAt(0) - 65 >= optionCount)
      throw fail(
        `"answer" ${reference} names no option of question_id ${questionId}, which has ${optionCount === 0 ? 'no options' : `${optionCount} options (A-${letterOf(optionCount - 1)})`}; fix the answer or the item's options in ${itemsFile}`,
      );
    const proposals: Record<string, RecordedProposal> = {};
    agentColumns.forEach((agent, column) => {
      const cell = (cells[column + 3] ?? '').trim();
      if (cell === 'NA') return;
      if (cell === '') {
        proposals[agent] = { answer: null, correct: false };
        return;
      }
      if (!/^[A-Z]$/.test(cell))
        throw fail(`agent ${agent}: prediction must be one letter, empty or NA, got ${JSON.stringify(cell)}`);
      if (cell.charCodeAt(0) - 65 >= optionCount) {
        proposals[agent] = { answer: null, correct: false, text: cell };
        skipped.predictionsBeyondOptions = (skipped.predictionsBeyondOptions ?? 0) + 1;
        return;
      }
      proposals[agent] = { answer: cell, correct: cell === reference };
    });
    if (Object.keys(proposals).length === 0) {
      skipped.noProposals = (skipped.noProposals ?? 0) + 1;
      continue;
    }
    const letters = item.options.map((option, index) => `${letterOf(index)}. ${option}`).join('\n');
    tasks.push({
      id: questionId,
      kind: 'choice',
      prompt: `${item.question}\n${letters}`,
      reference,
      options: Math.max(2, Math.min(26, item.options.length)),
      proposals,
    });
  }
  const agents: AgentIdentity[] = agentColumns.map((id) => ({ id, model: families.get(id) ?? id }));
  // Models listed without a column of predictions are not agents of the dataset; they are counted, not dropped silently.
  const listedOnly = [...families.keys()].filter((model) => !agentColumns.includes(model)).length;
  if (listedOnly > 0) skipped.modelsWithoutPredictions = listedOnly;
  return {
    schemaVersion: 1,
    name: basename(directory),
    format: 'mmlu-pro',
    agents,
    tasks,
    skipped,
    correctness: 'flags',
    kindSource: 'mmlu-pro format: option letters',
  };
}
