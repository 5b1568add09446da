// Internal: input checks shared by the aggregators of this folder. Not re-exported.
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { AggregationInput } from './aggregator.js';

/**
 * Checks that proposals belong to the task and name each agent at most once.
 */
export function validateProposals(input: AggregationInput): void {
  if (input === null || typeof input !== 'object' || input.task === undefined || typeof input.task.id !== 'string') {
    throw new InvalidArgumentError({
      parameter: 'input.task',
      value: input?.task,
      message: 'input.task must be a task with an id; pass { task, proposals, agents }',
    });
  }
  if (!Array.isArray(input.proposals)) {
    throw new InvalidArgumentError({
      parameter: 'input.proposals',
      value: input.proposals,
      message: `input.proposals must be an array of proposals for task ${input.task.id}`,
    });
  }
  const proposals = input.proposals;
  // A team-sized list is checked for repeated agents pair by pair, which allocates nothing; a longer
  // one through a set. Either way the first repeat found is the earliest proposal whose agent came before.
  const seen = proposals.length > smallBatch ? new Set<AgentId>() : undefined;
  for (let index = 0; index < proposals.length; index++) {
    const proposal = proposals[index] as Proposal;
    if (proposal === undefined && !(index in proposals)) continue; // forEach skipped holes; so does this loop
    if (proposal.taskId !== input.task.id) {
      throw new InvalidArgumentError({
        parameter: `input.proposals[${index}].taskId`,
        value: proposal.taskId,
        message: `proposal of agent ${JSON.stringify(proposal.agentId)} is for task ${JSON.stringify(proposal.taskId)}, but the task is ${JSON.stringify(input.task.id)}; pass only proposals of this task`,
      });
    }
    if (proposal.answer !== null && typeof proposal.answer !== 'string') {
      throw new InvalidArgumentError({
        parameter: `input.proposals[${index}].answer`,
        value: proposal.answer,
        message: `proposal answer must be a string key or null, got ${String(proposal.answer)}`,
      });
    }
    if (seen === undefined ? repeatsEarlier(proposals, index) : seen.has(proposal.agentId)) {
      throw new InvalidArgumentError({
        parameter: `input.proposals[${index}].agentId`,
        value: proposal.agentId,
        message: `agent ${JSON.stringify(proposal.agentId)} has more than one final proposal for task ${input.task.id}; pass earlier rounds as input.history`,
      });
    }
    seen?.add(proposal.agentId);
  }
}

/** Lists up to this many proposals are checked for repeated agents pair by pair. */
const smallBatch = 16;

/** Whether an earlier proposal has the same agent as `proposals[index]`. */
function repeatsEarlier(proposals: readonly Proposal[], index: number): boolean {
  const agentId = (proposals[index] as Proposal).agentId;
  for (let earlier = 0; earlier < index; earlier++) if (proposals[earlier]?.agentId === agentId) return true;
  return false;
}
