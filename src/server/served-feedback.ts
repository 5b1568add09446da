// Feedback on a served decision: a requester tells the team whether its answer was right (a
// reference answer, correct/incorrect, or a score), and reputation learns from it the way the
// replay's post-task assessment does: each graded agent gets an outcome (its success) and a
// behaviour record whose quality is that success. Once per decision, whoever posts it and however
// often: the first grade is kept and returned again.
import { scoreAnswer } from '../core/answers/answers.js';
import type { AnswerKind } from '../core/answers/answer-kind.js';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import type { Evidence } from '../core/reputation-model.js';
import type { LoggedReputation } from '../store/_logged-reputation.js';
import type { Store } from '../store/store.js';

/** What a served decision leaves for later grading (kept in the store under {@link servedDecisionKey}). */
export interface ServedDecisionRecord {
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly method: string;
  readonly kind: AnswerKind;
  /** The decided answer key. */
  readonly decided: string | null;
  /** Each participant's answer key (`null`: none or failed). */
  readonly answers: Readonly<Record<string, string | null>>;
}

/** A grade of one served decision: exactly one of `reference`, `correct` or `score`. */
export interface ServedFeedbackInput {
  /** The decision's task id (`repute.taskId`, or the completion id `chatcmpl-<taskId>`). */
  readonly taskId: string;
  /** The right answer: each agent is graded against it (by the decision's answer kind). */
  readonly reference?: string;
  /** Whether the team's answer was right: agents that gave it succeed (or fail); others are not graded when it was wrong. */
  readonly correct?: boolean;
  /** The team's answer's grade in [0, 1]: agents that gave it get it as their success; others are not graded. */
  readonly score?: number;
}

/** What grading a served decision did. */
export interface ServedFeedbackResult {
  readonly schemaVersion: 1;
  readonly taskId: string;
  /** False when the decision had been graded before: nothing changed, the first grade is returned. */
  readonly applied: boolean;
  /** The decision's grade in [0, 1]. */
  readonly score: number;
  /** Each graded agent's success in [0, 1]. */
  readonly successes: Readonly<Record<string, number>>;
  /** Scores after the grade, in [0, 1]. */
  readonly reputation: Readonly<Record<string, number>>;
}

/** Store key of a served decision's record. */
export function servedDecisionKey(team: string, taskId: string): string {
  return `repute-served:v1:${JSON.stringify([team, taskId])}`;
}

const feedbackKey = (team: string, taskId: string) => `repute-feedback:v1:${JSON.stringify([team, taskId])}`;

/**
 * Grades one served decision of `team` and appends the grade's evidence to the team's reputation
 * log of the decision's method, in one store transaction, under the idempotency key
 * `${decision's runId}/${method}/${taskId}/feedback`: two posts of the same grade, to one replica or
 * to two, apply it once. `logged` is this server's view of the log of `method`; a decision of
 * another method (the team's served method changed) updates no reputation.
 */
export function gradeServedDecision({
  store,
  team,
  method,
  logged,
  input,
}: {
  store: Store;
  team: string;
  method: string;
  logged: LoggedReputation | undefined;
  input: ServedFeedbackInput;
}): ServedFeedbackResult {
  const taskId = input.taskId.replace(/^chatcmpl-/, '');
  const given = (['reference', 'correct', 'score'] as const).filter((key) => input[key] !== undefined);
  if (given.length !== 1)
    throw new InvalidArgumentError({
      parameter: 'body',
      value: given,
      message: `grade a decision with exactly one of reference, correct or score, got ${given.length === 0 ? 'none' : given.join(' and ')}; e.g. {"taskId": "${taskId}", "correct": true}`,
    });
  if (input.score !== undefined && !(input.score >= 0 && input.score <= 1))
    throw new InvalidArgumentError({
      parameter: 'body.score',
      value: input.score,
      message: `score must be in [0, 1], got ${input.score}; 1 = the team's answer was right`,
    });
  return store.transaction(() => {
    const earlier = store.getCachedResponse(feedbackKey(team, taskId)) as ServedFeedbackResult | undefined;
    if (earlier !== undefined) return { ...earlier, applied: false };
    const decision = store.getCachedResponse(servedDecisionKey(team, taskId)) as ServedDecisionRecord | undefined;
    if (decision === undefined)
      throw new NotFoundError({
        entity: 'decision',
        id: taskId,
        message: `team ${team} served no decision ${JSON.stringify(taskId)}; pass the repute.taskId (or the id) of a completion this team answered`,
      });
    const successes: Record<string, number> = {};
    let score: number;
    if (input.reference !== undefined) {
      const reference = input.reference;
      for (const [agentId, answer] of Object.entries(decision.answers))
        successes[agentId] = answer !== null && scoreAnswer(decision.kind, answer, reference).correct ? 1 : 0;
      score = decision.decided !== null && scoreAnswer(decision.kind, decision.decided, reference).correct ? 1 : 0;
    } else {
      score = input.score ?? (input.correct ? 1 : 0);
      // Agents that gave the team's answer share its grade; the others are graded only when the
      // team was right (then they were wrong): a wrong team answer says nothing about theirs.
      for (const [agentId, answer] of Object.entries(decision.answers)) {
        if (answer !== null && answer === decision.decided) successes[agentId] = score;
        else if (score === 1) successes[agentId] = 0;
      }
    }
    let before: Record<string, number> = {};
    let after: Record<string, number> = {};
    let readVersion: number | undefined;
    if (logged && decision.method === method) {
      readVersion = logged.sync();
      const reputation = logged.model;
      before = reputation.scores();
      const evidence: Evidence[] = Object.entries(successes).flatMap(([agentId, success]): Evidence[] => [
        { type: 'outcome', taskId, subject: agentId, success },
        {
          type: 'behaviour',
          taskId,
          subject: agentId,
          valid: decision.answers[agentId] !== null,
          flagged: false,
          risk: 0,
          quality: success,
        },
      ]);
      reputation.observe(evidence);
      after = reputation.scores();
      for (const event of logged.events(taskId, `${decision.runId}/${method}/${taskId}/feedback`))
        store.appendReputationEvent(event);
    }
    store.appendEvents(decision.runId, [
      {
        data: {
          type: 'feedback',
          taskId,
          score,
          successes,
          before,
          after,
          ...(readVersion === undefined ? {} : { readVersion }),
        },
        method: decision.method,
        taskId,
      },
    ]);
    const result: ServedFeedbackResult = {
      schemaVersion: 1,
      taskId,
      applied: true,
      score,
      successes,
      reputation: after,
    };
    store.putCachedResponse({ key: feedbackKey(team, taskId), value: result });
    return result;
  });
}
