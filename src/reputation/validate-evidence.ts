import { assertAgentId, type AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { validateRating } from '../core/rating.js';
import { assertInRange, assertNonEmptyString, assertNonNegative } from '../core/validate.js';
import { describe, unknownAgent } from './_shared.js';
import type { Evidence } from './reputation-model.js';

/** The evidence `type` tags a reputation model accepts. */
export const evidenceTypes = ['outcome', 'rating', 'behaviour', 'witness'] as const;

/**
 * Checks a whole batch of evidence before any of it is applied, so that a batch with one bad item
 * changes nothing. Every item is checked, including types the calling model ignores.
 *
 * Refuses, naming the field (`evidence[3].success`) and the value: a non-array batch, unknown
 * `type`, empty task ids, ids not in `knownAgents` (`NotFoundError`), `success`, rating `score`,
 * `risk` and `quality` outside [0, 1] or NaN, NaN or negative witness counts, non-boolean
 * `valid`/`flagged`, and a witness reporting to itself (`observer === witness`).
 *
 * @example
 * validateEvidenceBatch([{ type: 'outcome', taskId: 't1', subject: 'a1', success: 1 }], new Set(['a1']));
 */
export function validateEvidenceBatch(
  evidence: readonly Evidence[],
  knownAgents: { has(agentId: AgentId): boolean },
  parameter = 'evidence',
): void {
  if (!Array.isArray(evidence)) {
    throw new InvalidArgumentError({
      parameter,
      value: evidence,
      message: `${parameter} must be an array of evidence items, got ${describe(evidence)}; wrap a single item in [ ]`,
    });
  }
  // The common case (every item valid) is checked without building a field path per check; an item
  // the quick check does not accept goes through the full check, which throws the named error.
  for (let index = 0; index < evidence.length; index++) {
    const item = evidence[index] as Evidence;
    if (item === undefined && !(index in evidence)) continue; // forEach skipped holes; so does this loop
    if (!isPlainlyValid(item, knownAgents)) validateEvidenceItem(item, knownAgents, `${parameter}[${index}]`);
  }
}

const isAgent = (knownAgents: { has(agentId: AgentId): boolean }, agentId: unknown): boolean =>
  typeof agentId === 'string' && agentId.length > 0 && knownAgents.has(agentId);
const isTaskId = (taskId: unknown): boolean => typeof taskId === 'string' && taskId.length > 0;
// A finite number in [0, 1] (NaN fails both comparisons).
const isUnit = (value: unknown): boolean => typeof value === 'number' && value >= 0 && value <= 1;

/** True only for items {@link validateEvidenceItem} accepts; `false` means "run the full check". */
function isPlainlyValid(item: Evidence, knownAgents: { has(agentId: AgentId): boolean }): boolean {
  if (item === null || typeof item !== 'object') return false;
  switch (item.type) {
    case 'rating': {
      const rating = item.rating;
      return (
        rating !== null &&
        typeof rating === 'object' &&
        isAgent(knownAgents, rating.rater) &&
        isAgent(knownAgents, rating.ratee) &&
        isTaskId(rating.taskId) &&
        isUnit(rating.score)
      );
    }
    case 'outcome':
      return (
        isTaskId(item.taskId) &&
        isAgent(knownAgents, item.subject) &&
        isUnit(item.success) &&
        (item.observer === undefined || isAgent(knownAgents, item.observer))
      );
    case 'behaviour':
      return (
        isTaskId(item.taskId) &&
        isAgent(knownAgents, item.subject) &&
        typeof item.valid === 'boolean' &&
        typeof item.flagged === 'boolean' &&
        isUnit(item.risk) &&
        isUnit(item.quality)
      );
    default:
      return false;
  }
}

function validateEvidenceItem(item: Evidence, knownAgents: { has(agentId: AgentId): boolean }, path: string): void {
  if (item === null || typeof item !== 'object') {
    throw new InvalidArgumentError({
      parameter: path,
      value: item,
      message: `${path} must be an evidence object, got ${describe(item)}`,
    });
  }
  const requireAgent = (field: string, agentId: unknown): void => {
    assertAgentId(`${path}.${field}`, agentId);
    if (!knownAgents.has(agentId)) throw unknownAgent(agentId, `${path}.${field}`);
  };
  switch (item.type) {
    case 'outcome':
      assertNonEmptyString(`${path}.taskId`, item.taskId);
      requireAgent('subject', item.subject);
      assertInRange(`${path}.success`, item.success, 0, 1, {
        hint: 'use 1 for success, 0 for failure, a fraction for partial success',
      });
      if (item.observer !== undefined) requireAgent('observer', item.observer);
      return;
    case 'rating': {
      const rating = item.rating;
      if (rating === null || typeof rating !== 'object') {
        throw new InvalidArgumentError({
          parameter: `${path}.rating`,
          value: rating,
          message: `${path}.rating must be a Rating object, got ${describe(rating)}`,
        });
      }
      requireAgent('rating.rater', rating.rater);
      requireAgent('rating.ratee', rating.ratee);
      assertNonEmptyString(`${path}.rating.taskId`, rating.taskId);
      validateRating(rating, `${path}.rating`);
      return;
    }
    case 'behaviour':
      assertNonEmptyString(`${path}.taskId`, item.taskId);
      requireAgent('subject', item.subject);
      assertBoolean(`${path}.valid`, item.valid);
      assertBoolean(`${path}.flagged`, item.flagged);
      assertInRange(`${path}.risk`, item.risk, 0, 1);
      assertInRange(`${path}.quality`, item.quality, 0, 1);
      return;
    case 'witness':
      requireAgent('observer', item.observer);
      requireAgent('witness', item.witness);
      requireAgent('subject', item.subject);
      assertNonNegative(
        `${path}.positive`,
        item.positive,
        'witness counts are decayed evidence counts above the Beta(1, 1) prior',
      );
      assertNonNegative(
        `${path}.negative`,
        item.negative,
        'witness counts are decayed evidence counts above the Beta(1, 1) prior',
      );
      if (item.observer === item.witness) {
        throw new InvalidArgumentError({
          parameter: `${path}.witness`,
          value: item.witness,
          message: `${path}.witness equals its observer ${JSON.stringify(item.observer)}; a witness report comes from another agent, record first-hand evidence as an outcome instead`,
        });
      }
      return;
    default:
      throw new InvalidArgumentError({
        parameter: `${path}.type`,
        value: (item as { type?: unknown }).type,
        message: `${path}.type must be one of ${evidenceTypes.join(', ')}, got ${describe((item as { type?: unknown }).type)}`,
      });
  }
}

function assertBoolean(parameter: string, value: unknown): asserts value is boolean {
  if (typeof value !== 'boolean') {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be true or false, got ${describe(value)}`,
    });
  }
}
