import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { once } from 'node:events';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { DataFormatError } from '../../core/errors.js';
import type { ProposalsDataset, ProposalsHeader, ProposalsRecord } from './format.js';
import { isProposalsHeader, parseProposalsHeader, parseProposalsRecord, proposalsFormatTag } from './format.js';
import { parseJsonLine, readLines } from './read-lines.js';

/** A streamed item of a proposals file: the header (at most one, first) or a task. */
export type ProposalsLine =
  | { readonly type: 'header'; readonly line: number; readonly header: ProposalsHeader }
  | { readonly type: 'task'; readonly line: number; readonly record: ProposalsRecord };

/**
 * Streams a Repute proposals file (JSON Lines, `.gz` allowed), validating each line as it is read.
 * Throws {@link DataFormatError} naming the file and line on a malformed or invalid line, and naming
 * the file when it holds no line at all (empty or blank).
 *
 * @example
 * for await (const item of streamProposalsJsonl('run.jsonl')) if (item.type === 'task') use(item.record);
 */
export async function* streamProposalsJsonl(file: string): AsyncGenerator<ProposalsLine> {
  let versioned = false;
  let first = true;
  for await (const numbered of readLines(file, {
    expected: 'one JSON object per line (an optional header, then one task per line)',
  })) {
    const value = parseJsonLine(file, numbered);
    if (isProposalsHeader(value)) {
      if (!first)
        throw new DataFormatError({
          file,
          line: numbered.line,
          message: 'a header line may only appear as the first line',
        });
      versioned = true;
      first = false;
      yield { type: 'header', line: numbered.line, header: parseProposalsHeader(value, file, numbered.line) };
      continue;
    }
    first = false;
    yield { type: 'task', line: numbered.line, record: parseProposalsRecord(value, file, numbered.line, versioned) };
  }
}

/**
 * Loads a whole Repute proposals file into a {@link ProposalsDataset}. Tasks without any proposal
 * are counted in `skipped.noProposals`; duplicate task ids and an agent mapped to two models throw.
 *
 * @example
 * const dataset = await loadProposalsJsonl('run.jsonl');
 */
export async function loadProposalsJsonl(file: string): Promise<ProposalsDataset> {
  const models = new Map<string, string>();
  const order: string[] = [];
  const tasks: ProposalsRecord[] = [];
  const ids = new Map<string, number>();
  const skipped: Record<string, number> = {};
  let name = basename(file).replace(/\.jsonl(\.gz)?$/, '');
  let flagged = 0;
  let answered = 0;
  const setModel = (agent: string, model: string, line: number) => {
    const known = models.get(agent);
    if (known !== undefined && known !== model) {
      throw new DataFormatError({
        file,
        line,
        message: `agent ${JSON.stringify(agent)} is mapped to model ${JSON.stringify(model)} but earlier to ${JSON.stringify(known)}; an agent has one model`,
      });
    }
    models.set(agent, model);
  };
  for await (const item of streamProposalsJsonl(file)) {
    if (item.type === 'header') {
      if (item.header.name) name = item.header.name;
      for (const [agent, model] of Object.entries(item.header.models ?? {})) setModel(agent, model, item.line);
      continue;
    }
    const { record, line } = item;
    const earlier = ids.get(record.id);
    if (earlier !== undefined)
      throw new DataFormatError({
        file,
        line,
        message: `duplicate task id ${JSON.stringify(record.id)} (first on line ${earlier}); task ids must be unique`,
      });
    ids.set(record.id, line);
    for (const [agent, model] of Object.entries(record.models ?? {})) setModel(agent, model, line);
    const agents = Object.keys(record.proposals);
    if (agents.length === 0) {
      skipped.noProposals = (skipped.noProposals ?? 0) + 1;
      continue;
    }
    for (const agent of agents) {
      if (!order.includes(agent)) order.push(agent);
      const proposal = record.proposals[agent];
      if (proposal?.correct !== undefined) flagged++;
      answered++;
    }
    tasks.push(record);
  }
  for (const agent of models.keys()) if (!order.includes(agent)) order.push(agent);
  const agents: AgentIdentity[] = order.map((id) => ({ id, model: models.get(id) ?? id }));
  return {
    schemaVersion: 1,
    name,
    format: 'jsonl',
    agents,
    tasks,
    skipped,
    correctness: flagged === 0 ? 'equivalence' : flagged === answered ? 'flags' : 'mixed',
    kindSource: 'each task\'s "kind" field',
  };
}

/** Renders a dataset as Repute proposals JSON Lines: a header with the agent → model map, then one task per line. */
export function formatProposalsJsonl(dataset: Pick<ProposalsDataset, 'name' | 'agents' | 'tasks'>): string {
  const header: ProposalsHeader = {
    schemaVersion: 1,
    format: proposalsFormatTag,
    name: dataset.name,
    models: Object.fromEntries(dataset.agents.map((agent) => [agent.id, agent.model])),
  };
  const lines = [JSON.stringify(header)];
  for (const task of dataset.tasks) lines.push(JSON.stringify({ schemaVersion: 1, ...task }));
  return `${lines.join('\n')}\n`;
}

/**
 * Writes a dataset as a Repute proposals file, streaming one line per task.
 *
 * @example
 * await writeProposalsJsonl('out.jsonl', await loadDataset('../shared/data/zeroeval-math-l5'));
 */
export async function writeProposalsJsonl(
  file: string,
  dataset: Pick<ProposalsDataset, 'name' | 'agents' | 'tasks'>,
): Promise<void> {
  const stream = createWriteStream(file, { encoding: 'utf8' });
  const write = async (text: string) => {
    if (!stream.write(text)) await once(stream, 'drain');
  };
  const header: ProposalsHeader = {
    schemaVersion: 1,
    format: proposalsFormatTag,
    name: dataset.name,
    models: Object.fromEntries(dataset.agents.map((agent) => [agent.id, agent.model])),
  };
  await write(`${JSON.stringify(header)}\n`);
  for (const task of dataset.tasks) await write(`${JSON.stringify({ schemaVersion: 1, ...task })}\n`);
  stream.end();
  await once(stream, 'finish');
}
