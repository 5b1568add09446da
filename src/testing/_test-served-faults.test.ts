import { describe, expect, it } from 'vitest';
import {
  countServedFaults,
  type ServedAttempt,
  type ServedRequestLog,
  servedFaultCaseOf,
  servedTasksWithEvidence,
} from './_test-served-faults.js';

const answered = (taskId: string, replayed = false): ServedAttempt => ({ kind: 'answered', taskId, replayed });
const failed = (reason: string): ServedAttempt => ({ kind: 'failed', reason });

describe('servedFaultCaseOf', () => {
  it('files 5xx statuses under http-5xx and every other failure under connection', () => {
    expect(servedFaultCaseOf('HTTP 500')).toBe('http-5xx');
    expect(servedFaultCaseOf('HTTP 503')).toBe('http-5xx');
    expect(servedFaultCaseOf('HTTP 5000')).toBe('connection');
    expect(servedFaultCaseOf('ECONNRESET')).toBe('connection');
    expect(servedFaultCaseOf('UND_ERR_SOCKET')).toBe('connection');
    expect(servedFaultCaseOf('TimeoutError')).toBe('connection');
  });
});

describe('countServedFaults', () => {
  it('with keys: a retry whose first attempt was decided is replayed, no duplicate, no orphan', () => {
    // r0: answered at once (t0).                                    case none
    // r1: reset, then answered t1 replayed (its first attempt was decided).  case connection
    // r2: socket closed twice, then answered t2 fresh (the killed replicas decided nothing).  connection
    // r3: HTTP 500, then answered t3 replayed.                      case http-5xx
    const requests: ServedRequestLog[] = [
      { request: 0, attempts: [answered('t0')] },
      { request: 1, attempts: [failed('ECONNRESET'), answered('t1', true)] },
      { request: 2, attempts: [failed('UND_ERR_SOCKET'), failed('UND_ERR_SOCKET'), answered('t2')] },
      { request: 3, attempts: [failed('HTTP 500'), answered('t3', true)] },
    ];
    const decisions = ['t0', 't1', 't2', 't3'].map((taskId, request) => ({ taskId, request, evidence: true }));
    const report = countServedFaults({ requests, decisions });
    expect(report.cases.none).toEqual({
      requests: 1,
      answered: 1,
      retries: 0,
      replayed: 0,
      decisions: 1,
      duplicated: 0,
      orphans: 0,
      withoutEvidence: 0,
    });
    // r1 + r2: 2 requests, 1 + 2 = 3 retries, 1 replayed (r1), 2 decisions.
    expect(report.cases.connection).toEqual({
      requests: 2,
      answered: 2,
      retries: 3,
      replayed: 1,
      decisions: 2,
      duplicated: 0,
      orphans: 0,
      withoutEvidence: 0,
    });
    expect(report.cases['http-5xx']).toEqual({
      requests: 1,
      answered: 1,
      retries: 1,
      replayed: 1,
      decisions: 1,
      duplicated: 0,
      orphans: 0,
      withoutEvidence: 0,
    });
    // 4 requests, 0 + 3 + 1 = 4 retries, 2 replayed, 4 decisions.
    expect(report.total).toEqual({
      requests: 4,
      answered: 4,
      retries: 4,
      replayed: 2,
      decisions: 4,
      duplicated: 0,
      orphans: 0,
      withoutEvidence: 0,
    });
    expect(report.unattributed).toBe(0);
  });

  it('without keys: a retry after a stored decision duplicates it and orphans the first', () => {
    // r0: reset after t0a was stored; the retry decides again (t0b): 2 decisions, 1 duplicated,
    //     t0a never reached the client: 1 orphan.
    // r1: reset twice; the first killed replica had stored t1a, the second t1b, the third
    //     attempt answers t1c: 3 decisions, 2 duplicated, 2 orphans (t1a, t1b).
    // r2: HTTP 502 before any decision, then t2: 1 decision, 0 duplicated, 0 orphans.
    // r3: answered at once (t3); r4: gave up after two resets, nothing stored.
    // x: a decision whose answer names no request of the run: unattributed, an orphan in the total.
    const requests: ServedRequestLog[] = [
      { request: 0, attempts: [failed('ECONNRESET'), answered('t0b')] },
      { request: 1, attempts: [failed('ECONNRESET'), failed('UND_ERR_SOCKET'), answered('t1c')] },
      { request: 2, attempts: [failed('HTTP 502'), answered('t2')] },
      { request: 3, attempts: [answered('t3')] },
      { request: 4, attempts: [failed('ECONNRESET'), failed('ECONNRESET')] },
    ];
    // Evidence: the first decision of a request appends it; a retry decided again carries the same
    // conversation, so every agent has given evidence on it already and it appends none (t0b, t1b,
    // t1c); x appended none either.
    const decisions = [
      { taskId: 't0a', request: 0, evidence: true },
      { taskId: 't1a', request: 1, evidence: true },
      { taskId: 't0b', request: 0, evidence: false },
      { taskId: 't1b', request: 1, evidence: false },
      { taskId: 't1c', request: 1, evidence: false },
      { taskId: 't2', request: 2, evidence: true },
      { taskId: 't3', request: 3, evidence: true },
      { taskId: 'x', request: undefined, evidence: false },
    ];
    const report = countServedFaults({ requests, decisions });
    // r0, r1, r4: 3 requests, 2 answered (r4 gave up), 1 + 2 + 2 = 5 retries, 0 replayed,
    // 2 + 3 + 0 = 5 decisions, 1 + 2 = 3 duplicated, 1 + 2 = 3 orphans, 1 + 2 = 3 without evidence.
    expect(report.cases.connection).toEqual({
      requests: 3,
      answered: 2,
      retries: 5,
      replayed: 0,
      decisions: 5,
      duplicated: 3,
      orphans: 3,
      withoutEvidence: 3,
    });
    expect(report.cases['http-5xx']).toEqual({
      requests: 1,
      answered: 1,
      retries: 1,
      replayed: 0,
      decisions: 1,
      duplicated: 0,
      orphans: 0,
      withoutEvidence: 0,
    });
    expect(report.cases.none).toEqual({
      requests: 1,
      answered: 1,
      retries: 0,
      replayed: 0,
      decisions: 1,
      duplicated: 0,
      orphans: 0,
      withoutEvidence: 0,
    });
    // 5 requests, 4 answered, 6 retries; 5 + 1 + 1 + 1 (x) = 8 decisions; 3 duplicated; 3 + 1 (x) = 4 orphans;
    // 3 + 1 (x) = 4 without evidence.
    expect(report.total).toEqual({
      requests: 5,
      answered: 4,
      retries: 6,
      replayed: 0,
      decisions: 8,
      duplicated: 3,
      orphans: 4,
      withoutEvidence: 4,
    });
    expect(report.unattributed).toBe(1);
  });

  it('files a request under its first failure when its failures differ', () => {
    // HTTP 500 first, then a reset: http-5xx, 2 retries.
    const report = countServedFaults({
      requests: [{ request: 7, attempts: [failed('HTTP 500'), failed('ECONNRESET'), answered('t7')] }],
      decisions: [{ taskId: 't7', request: 7, evidence: true }],
    });
    expect(report.cases['http-5xx'].requests).toBe(1);
    expect(report.cases['http-5xx'].retries).toBe(2);
    expect(report.cases.connection.requests).toBe(0);
  });
  it('counts the decisions that appended no evidence, which the log cannot show, apart from the duplicated ones', async () => {
    // As the 2,000-decision run with --no-idempotency-key: the log held no event with an empty evidence
    // list, yet a stored decision had appended nothing. Without keys:
    // r0: reset after t0a was stored (all 3 agents gave evidence); the retry decides t0b with the
    //     same 3 agents: they gave evidence on this request already, so t0b appends no event.
    // r1: reset after t1a was stored, but 1 of its 3 agents had failed on the first attempt; it
    //     answers the retry, so t1b appends that agent's evidence: duplicated, yet with evidence.
    // r2: answered at once (t2).
    const report = countServedFaults({
      requests: [
        { request: 0, attempts: [failed('ECONNRESET'), answered('t0b')] },
        { request: 1, attempts: [failed('UND_ERR_SOCKET'), answered('t1b')] },
        { request: 2, attempts: [answered('t2')] },
      ],
      decisions: [
        { taskId: 't0a', request: 0, evidence: true },
        { taskId: 't0b', request: 0, evidence: false },
        { taskId: 't1a', request: 1, evidence: true },
        { taskId: 't1b', request: 1, evidence: true },
        { taskId: 't2', request: 2, evidence: true },
      ],
    });
    // connection (r0, r1): 4 decisions, 2 duplicated (t0b, t1b), 2 orphans (t0a, t1a), 1 without evidence (t0b).
    expect(report.cases.connection).toMatchObject({ decisions: 4, duplicated: 2, orphans: 2, withoutEvidence: 1 });
    expect(report.cases.none).toMatchObject({ decisions: 1, duplicated: 0, orphans: 0, withoutEvidence: 0 });
    // 5 decisions: 4 appended evidence (one event each in the log), 1 appended none.
    expect(report.total).toMatchObject({ decisions: 5, duplicated: 2, orphans: 2, withoutEvidence: 1 });
  });
});

describe('servedTasksWithEvidence', () => {
  it("finds the served decisions with evidence in the log, not counting their grades' events", () => {
    // s1 is a served run, r1 a `repute run`:
    //   t1: its evidence (2 batches, the second `#2`) and its grade -> with evidence.
    //   t2: a retry decided again: no evidence event, only its grade -> without (before the fix the
    //       grade, same task id and run, made it count as with evidence).
    //   t3: an event with no outcomes -> without.  t4: a run task -> not served.
    //   t5: evidence only from answers that came late (`/late`) -> with evidence.
    const events = [
      { key: 's1/beta/t1', runId: 's1', taskId: 't1', evidenceCount: 3 },
      { key: 's1/beta/t1#2', runId: 's1', taskId: 't1', evidenceCount: 1 },
      { key: 's1/beta/t1/feedback', runId: 's1', taskId: 't1', evidenceCount: 3 },
      { key: 's1/beta/t2/feedback', runId: 's1', taskId: 't2', evidenceCount: 3 },
      { key: 's1/beta/t2/feedback#2', runId: 's1', taskId: 't2', evidenceCount: 1 },
      { key: 's1/beta/t3', runId: 's1', taskId: 't3', evidenceCount: 0 },
      { key: 'r1/beta/t4', runId: 'r1', taskId: 't4', evidenceCount: 3 },
      { key: 's1/beta/t5/late', runId: 's1', taskId: 't5', evidenceCount: 1 },
    ];
    expect([...servedTasksWithEvidence(events, new Set(['s1']))].sort()).toEqual(['t1', 't5']);
  });
});
