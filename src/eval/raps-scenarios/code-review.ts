import type { Acted, ActUsage, Agent } from '../../agents/agent.js';
import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { Message } from '../../core/message.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';

/** The built-in diff the `code-review` scenario reviews (TypeScript, one file). */
export const reviewDiff = `diff --git a/src/users.ts b/src/users.ts
--- a/src/users.ts
+++ b/src/users.ts
@@ -1,5 +1,26 @@
 import { db } from './db';
+import { cache } from './cache';
 
-export async function getUser(id: number) {
-  return db.query('SELECT * FROM users WHERE id = ?', [id]);
+export async function getUser(id: string) {
+  return db.query("SELECT * FROM users WHERE id = '" + id + "'");
 }
+
+export async function getUsersWithOrders(ids: string[]) {
+  const result = [];
+  for (const id of ids) {
+    const user = await getUser(id);
+    const orders = await db.query('SELECT * FROM orders WHERE user_id = ?', [id]);
+    result.push({ ...user, orders });
+  }
+  return result;
+}
+
+export function formatUserName(u: any) { return u.first_name + ' ' + u.last_name }
+
+export async function handleDeleteUser(req: any, res: any) {
+  await db.query('DELETE FROM users WHERE id = ?', [req.params.id]);
+  cache.clear();
+  res.send('ok');
+}
`;

/** One review finding: a location in the new file, the code it quotes and what is wrong. */
export interface ReviewFinding {
  /** Kind of problem, named after the reviewer role that looks for it (e.g. `performance`). */
  readonly category: string;
  /** Path of the file in the diff. */
  readonly file: string;
  /** 1-based line in the new version of the file. */
  readonly line: number;
  /** Code quoted from that line. */
  readonly snippet: string;
  /** What is wrong, in one sentence. */
  readonly message: string;
}

/** Lines of the new file version in a unified diff: path → (line number → text). */
export function newFileLines(diff: string): Map<string, Map<number, string>> {
  const files = new Map<string, Map<number, string>>();
  let current: Map<number, string> | undefined;
  let line = 0;
  // A trailing newline ends the last line; it does not start an empty one.
  for (const raw of diff.replace(/\n$/, '').split('\n')) {
    const header = /^\+\+\+ b\/(.+)$/.exec(raw);
    if (header) {
      current = new Map();
      files.set(header[1] as string, current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (hunk) {
      line = Number(hunk[1]);
      continue;
    }
    if (!current || raw.startsWith('---') || raw.startsWith('diff ')) continue;
    if (raw.startsWith('-')) continue;
    if (raw.startsWith('+') || raw.startsWith(' ') || raw === '') {
      current.set(line, raw.slice(1));
      line++;
    }
  }
  return files;
}

interface Rule {
  readonly pattern: RegExp;
  readonly snippet: string;
  readonly message: string;
}

/** What each reviewer role looks for, as patterns over the new lines. */
const rules: Readonly<Record<string, readonly Rule[]>> = {
  security: [
    {
      pattern: /query\("SELECT.*\+ id \+/,
      snippet: `"SELECT * FROM users WHERE id = '" + id + "'"`,
      message: 'SQL injection: the query is built by string concatenation with user input; use a parameter',
    },
    {
      pattern: /export async function handleDeleteUser/,
      snippet: 'handleDeleteUser(req: any, res: any)',
      message: 'delete endpoint has no authorization check',
    },
  ],
  performance: [
    {
      pattern: /const orders = await db\.query/,
      snippet: "await db.query('SELECT * FROM orders WHERE user_id = ?', [id])",
      message: 'N+1 queries: one orders query per user inside the loop; fetch all orders in one query',
    },
    {
      pattern: /cache\.clear\(\)/,
      snippet: 'cache.clear();',
      message: 'clears the whole cache on every delete; evict only the deleted user',
    },
  ],
  style: [
    {
      pattern: /formatUserName\(u: any\)/,
      snippet: 'formatUserName(u: any)',
      message: 'parameter typed as any; declare a User type',
    },
    {
      pattern: /last_name }$/,
      snippet: "u.first_name + ' ' + u.last_name }",
      message: 'one-line function body without a semicolon; format it',
    },
  ],
  'test-coverage': [
    {
      pattern: /export async function getUsersWithOrders/,
      snippet: 'export async function getUsersWithOrders',
      message: 'no test added for getUsersWithOrders',
    },
    {
      pattern: /export async function handleDeleteUser/,
      snippet: 'export async function handleDeleteUser',
      message: 'no test added for handleDeleteUser',
    },
    {
      pattern: /export function formatUserName/,
      snippet: 'export function formatUserName',
      message: 'no test added for formatUserName',
    },
  ],
  architecture: [
    {
      pattern: /await db\.query\('DELETE/,
      snippet: "await db.query('DELETE FROM users WHERE id = ?', [req.params.id]);",
      message: 'HTTP handler talks to the database directly; move data access into a service',
    },
    {
      pattern: /^import \{ cache \}/,
      snippet: "import { cache } from './cache';",
      message: 'users module now depends on the global cache singleton; inject it',
    },
  ],
};

/** Findings a hallucinating reviewer invents: plausible, but the quoted code is not in the diff. */
const hallucinated: readonly ReviewFinding[] = [
  {
    category: 'performance',
    file: 'src/users.ts',
    line: 14,
    snippet: 'buildOrderTree(user.orders, depth + 1)',
    message: 'unbounded recursion in buildOrderTree can blow the stack',
  },
  {
    category: 'performance',
    file: 'src/users.ts',
    line: 31,
    snippet: 'new RedisClient(process.env.REDIS_URL)',
    message: 'opens a Redis connection per request',
  },
  {
    category: 'performance',
    file: 'src/cache.ts',
    line: 12,
    snippet: 'JSON.parse(JSON.stringify(orders))',
    message: 'deep-copies every order list on each read',
  },
];

/** Deterministic review of a diff by role: every rule that matches an added or context line. */
export function reviewByRole(role: string, diff: string): ReviewFinding[] {
  const findings: ReviewFinding[] = [];
  for (const [file, lines] of newFileLines(diff)) {
    for (const [line, text] of lines) {
      for (const rule of rules[role] ?? [])
        if (rule.pattern.test(text))
          findings.push({ category: role, file, line, snippet: rule.snippet, message: rule.message });
    }
  }
  return findings;
}

/** Writes findings as publication text, one per line: `- [category] file:line `snippet` — message`. */
export function formatFindings(findings: readonly ReviewFinding[]): string {
  if (findings.length === 0) return 'No findings.';
  return findings
    .map(
      (finding) =>
        `- [${finding.category}] ${finding.file}:${finding.line} \`${finding.snippet}\` — ${finding.message}`,
    )
    .join('\n');
}

/** Parses the lines {@link formatFindings} writes; other lines are ignored. */
export function parseFindings(text: string): ReviewFinding[] {
  const findings: ReviewFinding[] = [];
  for (const line of text.split('\n')) {
    const match = /^- \[([^\]]+)\] ([^:\s]+):(\d+) `(.+)` — (.+)$/.exec(line.trim());
    if (match)
      findings.push({
        category: match[1] as string,
        file: match[2] as string,
        line: Number(match[3]),
        snippet: match[4] as string,
        message: match[5] as string,
      });
  }
  return findings;
}

/** True when the finding's quoted code appears on the cited line of the new file. */
export function isGrounded(finding: ReviewFinding, lines: Map<string, Map<number, string>>): boolean {
  const text = lines.get(finding.file)?.get(finding.line);
  return text !== undefined && text.includes(finding.snippet.replace(/;$/, ''));
}

/** Canonical key of a finding (category, file, line and quoted code). */
export function findingKey(finding: ReviewFinding): string {
  return `${finding.category}@${finding.file}:${finding.line}:${finding.snippet}`;
}

const zeroUsage: ActUsage = { inputTokens: 0, outputTokens: 0, cost: 0, cached: false };

const knownReviewerOptions = defineOptionKeys<Parameters<typeof createReviewerAgent>[0]>()([
  'identity',
  'role',
  'hallucinating',
  'diff',
]);

/**
 * A rule-based reviewer agent for the built-in diff. It publishes its role's findings; its audit
 * checks every finding of a received review against the diff (quoted code on the cited line) and
 * calls the review reliable when at least 80% of its findings are grounded. A `hallucinating`
 * reviewer publishes invented findings instead.
 */
export function createReviewerAgent(options: {
  identity: AgentIdentity;
  role: string;
  hallucinating?: boolean;
  diff?: string;
}): Agent {
  assertKnownOptions('', options, knownReviewerOptions, 'createReviewerAgent');
  const { identity, role, hallucinating = false, diff = reviewDiff } = options;
  const lines = newFileLines(diff);
  const own = hallucinating
    ? hallucinated.map((finding) => ({ ...finding, category: role }))
    : reviewByRole(role, diff);
  const proposal = (task: Task, round: number): Proposal => ({
    agentId: identity.id,
    taskId: task.id,
    round,
    text: formatFindings(own),
    answer: own.map(findingKey).sort().join(','),
  });
  const acted = <T>(value: T): Acted<T> => ({ value, usage: zeroUsage });
  return {
    identity,
    kind: 'simulated',
    propose: async ({ task }) => acted(proposal(task, 0)),
    revise: async ({ task, round }) => acted(proposal(task, round)),
    rate: async ({ task, proposal: rated }) => {
      const findings = parseFindings(rated.text);
      const grounded = findings.filter((finding) => isGrounded(finding, lines)).length;
      return acted({
        rater: identity.id,
        ratee: rated.agentId,
        taskId: task.id,
        score: findings.length === 0 ? 1 : grounded / findings.length,
        reason: `${grounded}/${findings.length} findings grounded in the diff`,
      });
    },
    audit: async ({ message }) => {
      const findings = parseFindings(message.text);
      const grounded = findings.filter((finding) => isGrounded(finding, lines)).length;
      const reliable = findings.length === 0 || grounded / findings.length >= 0.8;
      return acted({ reliable, reason: `${grounded}/${findings.length} cited lines quote code that is in the diff` });
    },
    refineSubscription: async ({ current, received }) => {
      // Follow the categories peers reported on, so related reviews keep reaching this reviewer.
      const categories = new Set<string>();
      for (const message of received as Message[])
        for (const finding of parseFindings(message.text)) categories.add(finding.category);
      const added = [...categories].sort().filter((category) => !current.includes(category));
      return acted(added.length === 0 ? current : `${current}; also ${added.join(', ')}`);
    },
  };
}

/** The five reviewer roles, their standing intents and which one hallucinates. */
export const reviewerRoles: ReadonlyArray<{
  readonly id: AgentId;
  readonly role: string;
  readonly intent: string;
  readonly hallucinating: boolean;
}> = [
  {
    id: 'security',
    role: 'security',
    intent: 'security review: SQL injection, authorization checks, secrets and unsafe input handling in code changes',
    hallucinating: false,
  },
  {
    id: 'performance',
    role: 'performance',
    intent: 'performance review: N+1 queries, loops with database calls, caching and memory use in code changes',
    hallucinating: true,
  },
  {
    id: 'style',
    role: 'style',
    intent: 'code style review: types instead of any, formatting, naming and readability of code changes',
    hallucinating: false,
  },
  {
    id: 'test-coverage',
    role: 'test-coverage',
    intent: 'test coverage review: new functions without tests, missing test cases for code changes',
    hallucinating: false,
  },
  {
    id: 'architecture',
    role: 'architecture',
    intent: 'architecture review: layering, handlers talking to the database, module dependencies and coupling',
    hallucinating: false,
  },
];

/** Builds the five reviewers and the review task. */
export function buildCodeReviewTeam(diff = reviewDiff) {
  const identities: AgentIdentity[] = reviewerRoles.map((reviewer) => ({
    id: reviewer.id,
    model: `reviewer-${reviewer.role}`,
  }));
  const agents = reviewerRoles.map((reviewer, index) =>
    createReviewerAgent({
      identity: identities[index] as AgentIdentity,
      role: reviewer.role,
      hallucinating: reviewer.hallucinating,
      diff,
    }),
  );
  const subscriptions = Object.fromEntries(reviewerRoles.map((reviewer) => [reviewer.id, reviewer.intent]));
  const task: Task = {
    id: 'review-users-ts',
    kind: 'labels',
    prompt: `Review this diff and report findings with file:line and the quoted code.\n${diff}`,
  };
  return { identities, agents, subscriptions, tasks: [task], diff };
}
