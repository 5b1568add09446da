// Data suite: the loaders on the real files in ../shared/data (or $REPUTE_DATA_DIR).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProposalsRecord, RecordedProposal } from '../../src/eval/proposals/format.js';
import { loadDataset } from '../../src/eval/proposals/load-dataset.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

// Skipped, not failed, where the data directory (or one of the three datasets) is absent.
const hasData = ['zeroeval-math-l5', 'zeroeval-gsm8k', 'mmlu-pro'].every((name) => existsSync(join(dataDir, name)));

interface ModelRow {
  model: string;
  family?: string;
  n_items: number;
  n_correct: number;
  accuracy: number;
  n_no_answer?: number;
  n_no_pred?: number;
}

async function checkAgainstModelsJson(
  name: string,
  tasks: number,
  agents: number,
  {
    skipped = {},
    unparseableBeyond = () => false,
  }: {
    skipped?: Record<string, number>;
    /** A proposal the loader reads as unparseable on top of the curators' count (n_no_pred). */
    unparseableBeyond?: (task: ProposalsRecord, proposal: RecordedProposal) => boolean;
  } = {},
) {
  const dataset = await loadDataset(join(dataDir, name));
  const models = (JSON.parse(readFileSync(join(dataDir, name, 'models.json'), 'utf8')) as { models: ModelRow[] })
    .models;
  expect(dataset.tasks).toHaveLength(tasks);
  expect(dataset.agents).toHaveLength(agents);
  expect(dataset.skipped).toEqual(skipped);
  expect(dataset.correctness).toBe('flags');
  for (const row of models) {
    let items = 0;
    let correct = 0;
    let unparseable = 0;
    let beyond = 0;
    for (const task of dataset.tasks) {
      const proposal = task.proposals[row.model];
      if (proposal === undefined) continue;
      items++;
      if (proposal.correct) correct++;
      if (proposal.answer === null) unparseable++;
      if (unparseableBeyond(task, proposal)) beyond++;
    }
    // models.json was computed by the data's curators from their own sources; we recount from proposals.
    expect({ agent: row.model, items, correct }).toEqual({
      agent: row.model,
      items: row.n_items,
      correct: row.n_correct,
    });
    expect(Math.round((correct / items) * 1e4) / 1e4).toBeCloseTo(row.accuracy, 4);
    const noAnswer = row.n_no_answer ?? row.n_no_pred;
    if (noAnswer !== undefined)
      expect({ agent: row.model, unparseable }).toEqual({ agent: row.model, unparseable: noAnswer + beyond });
    if (row.family !== undefined)
      expect(dataset.agents.find((agent) => agent.id === row.model)?.model).toBe(row.family);
  }
  return dataset;
}

describe.skipIf(!hasData)('loaders on the real data', () => {
  it('zeroeval-math-l5: 721 items × 40 agents, accuracies of models.json reproduced', async () => {
    const dataset = await checkAgainstModelsJson('zeroeval-math-l5', 721, 40);
    expect(new Set(dataset.agents.map((agent) => agent.model)).size).toBe(34);
    expect(dataset.tasks.every((task) => task.kind === 'math')).toBe(true);
  });

  it('zeroeval-gsm8k: 1319 items × 42 agents, accuracies of models.json reproduced', async () => {
    const dataset = await checkAgainstModelsJson('zeroeval-gsm8k', 1319, 42);
    expect(new Set(dataset.agents.map((agent) => agent.model)).size).toBe(35);
    expect(dataset.tasks.every((task) => task.kind === 'number-zeroeval')).toBe(true);
  });

  it('mmlu-pro: 12,032 items × 29 agents, accuracies of models.json reproduced', async () => {
    // The source's extractor reads any letter A-J from a model's reply, so items with fewer than 10
    // options get letters that name no option: the loader reads them as unparseable and counts them.
    // Counted here from the options listed in each task's prompt ("A. …" lines), not the loader's items.
    const optionsIn = (prompt: string) => prompt.match(/^[A-Z]\. /gm)?.length ?? 0;
    const dataset = await checkAgainstModelsJson('mmlu-pro', 12_032, 29, {
      skipped: { predictionsBeyondOptions: 180 },
      unparseableBeyond: (task, proposal) =>
        proposal.answer === null &&
        /^[A-Z]$/.test(proposal.text ?? '') &&
        (proposal.text ?? '').charCodeAt(0) - 65 >= optionsIn(task.prompt ?? ''),
    });
    expect(dataset.tasks.every((task) => task.kind === 'choice' && /^[A-J]$/.test(task.reference ?? ''))).toBe(true);
  });
});
