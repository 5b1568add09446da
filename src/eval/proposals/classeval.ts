// ClassEval (Du et al. 2023, "ClassEval: A Manually-Crafted Benchmark to Evaluate LLMs on
// Class-level Code Generation"; FudanSELab/ClassEval, MIT): 100 Python classes, each with unittest
// test classes, and the recorded whole-class ("class_H", greedy) completions of 12 models. The
// staged data has no per-task outcome, so the completions are graded here by running the tests in
// the sandbox, the way the authors' `classeval_evaluation/test_pipeline.py` grades them: the code is
// extracted from the completion by the authors' rule, the task's import statements are put before
// it, the tests after it, and a class counts as solved ("class_success") when every test class ran
// at least one test and none failed or errored.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { DataFormatError, NotFoundError } from '../../core/errors.js';
import type { ReplayData, ReplayItem } from '../drf-experiments/replay-pool.js';
import { type CodeTestResult, runCodeTests } from '../sandbox/run-code-tests.js';

/** One ClassEval task (the fields of `tasks.jsonl.gz` the grading reads). */
export interface ClassEvalTask {
  /** `ClassEval_<n>`. */
  readonly task_id: string;
  /** Name of the class to write. */
  readonly class_name: string;
  /** unittest code: the test classes below, calling the class by name. */
  readonly test: string;
  /** Names of the unittest.TestCase classes in `test` (some carry stray spaces in the source data). */
  readonly test_classes: readonly string[];
  /** Import lines the authors put before every program. */
  readonly import_statement: readonly string[];
  /** The benchmark's reference solution. */
  readonly solution_code: string;
}

/** One recorded completion (`predictions_class_H_greedy.jsonl.gz`). */
export interface ClassEvalPrediction {
  readonly task_id: string;
  /** The model (agent) name. */
  readonly model: string;
  /** Raw model text, code usually in a fenced block. */
  readonly completion: string;
}

/** Outcome of one graded program, as cached. */
export interface ClassEvalOutcome {
  /** Every test class ran ≥ 1 test and none failed or errored (the authors' class_success). */
  readonly passed: boolean;
  /** The sandbox's status (`timeout` when the wall-clock or CPU limit stopped it). */
  readonly status: CodeTestResult['status'];
}

/** Graded ClassEval: per task, whether its reference passes here, and every model's outcome. */
export interface ClassEvalGrading {
  readonly schemaVersion: 1;
  /** Models in data order. */
  readonly models: readonly string[];
  readonly tasks: ReadonlyArray<{
    readonly taskId: string;
    /** The reference solution passes its tests in this sandbox (else the task cannot be graded here). */
    readonly referencePasses: boolean;
    /** Why the reference failed (first error line), when it did. */
    readonly referenceError?: string;
    /** Model → extracted code (null when the completion holds none) and outcome. */
    readonly outcomes: Readonly<Record<string, { readonly code: string | null } & ClassEvalOutcome>>;
  }>;
  /** Programs run in this call (the rest came from the cache). */
  readonly ran: number;
}

/** Options of {@link gradeClassEval}. */
export interface GradeClassEvalOptions {
  /** The staged `classeval` directory (`tasks.jsonl.gz`, `predictions_class_H_greedy.jsonl.gz`). */
  readonly directory: string;
  /**
   * JSON Lines file of graded outcomes, keyed by a hash of the program run; read first, appended to
   * after every run, so a rerun only runs what is new. Omit to run everything.
   */
  readonly cacheFile?: string | undefined;
  /** Grade only these models (all when omitted). */
  readonly models?: readonly string[] | undefined;
  /** Grade only the first N tasks (all when omitted), to check the pipeline on a subset. */
  readonly taskLimit?: number | undefined;
  /** Wall-clock limit per program in ms (the authors allow 5 s per test class). @default 20000 */
  readonly timeoutMs?: number | undefined;
  /** Called after each program run (not for cache hits). */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
  /** Runs one program; the sandbox's `runCodeTests` unless a test swaps it. */
  readonly runTests?: ((code: string, test: string, timeoutMs: number) => Promise<ClassEvalOutcome>) | undefined;
}

/** Where graded outcomes are cached by default: `$XDG_CACHE_HOME/repute/classeval-grades.jsonl` (else under ~/.cache). */
export function defaultClassEvalGradesFile(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'repute', 'classeval-grades.jsonl');
}

/** Reads a gzipped JSON Lines file of objects. */
function readJsonLinesGz(file: string): Record<string, unknown>[] {
  if (!existsSync(file))
    throw new NotFoundError({
      entity: 'file',
      id: file,
      message: `file not found: ${file}; pass the staged classeval directory`,
    });
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
  const records: Record<string, unknown>[] = [];
  lines.forEach((text, index) => {
    if (text.trim().length === 0) return;
    try {
      records.push(JSON.parse(text) as Record<string, unknown>);
    } catch (error) {
      throw new DataFormatError({ file, line: index + 1, message: 'expected one JSON object per line', cause: error });
    }
  });
  return records;
}

/** Loads ClassEval's tasks and recorded completions from the staged directory. */
export function loadClassEvalFiles(directory: string): {
  tasks: ClassEvalTask[];
  predictions: ClassEvalPrediction[];
} {
  const tasksFile = join(directory, 'tasks.jsonl.gz');
  const tasks = readJsonLinesGz(tasksFile).map((record, index) => {
    for (const field of ['task_id', 'class_name', 'test', 'solution_code'] as const)
      if (typeof record[field] !== 'string')
        throw new DataFormatError({ file: tasksFile, line: index + 1, message: `"${field}" must be a string` });
    for (const field of ['test_classes', 'import_statement'] as const)
      if (!Array.isArray(record[field]))
        throw new DataFormatError({
          file: tasksFile,
          line: index + 1,
          message: `"${field}" must be a list of strings`,
        });
    return record as unknown as ClassEvalTask;
  });
  const predictionsFile = join(directory, 'predictions_class_H_greedy.jsonl.gz');
  const predictions = readJsonLinesGz(predictionsFile).map((record, index) => {
    for (const field of ['task_id', 'model', 'completion'] as const)
      if (typeof record[field] !== 'string')
        throw new DataFormatError({ file: predictionsFile, line: index + 1, message: `"${field}" must be a string` });
    return record as unknown as ClassEvalPrediction;
  });
  return { tasks, predictions };
}

/** First match group of `pattern` in `text`, or undefined (Python's `re.findall(...)[0]`). */
function firstGroup(text: string, pattern: RegExp): string | undefined {
  const match = pattern.exec(text);
  return match === null ? undefined : (match[1] ?? '');
}

/**
 * The program text of a completion by the authors' rule (`AutoTest.extract_code`), after dropping a
 * prompt that ends in an `@@ Response:` line (Magicoder's; ours, see below): for models whose
 * result file name contains `codegeex` (the only one of the staged 12 that their case-sensitive
 * list "CodeT5p", "StarCoder", "CodeGen", "codegeex" matches), the text after `### Response:`;
 * otherwise the first of ```` ```python…``` ````, ```` ```ruby…``` ````, ```` ```scss…``` ````, an
 * unclosed ```` ```python ```` (which yields the empty string, as in their code), ```` ```…``` ````,
 * `.py…​.py` (any character before `py`, as their regex reads); failing all, the text without the
 * lines before the first `class` line that are not imports (every line equal to such a line goes).
 */
export function extractClassEvalCode(completion: string, model: string): string {
  // Ours: Magicoder's staged completions carry its prompt, which ends in an "@@ Response:" line that
  // is not Python; the authors' 22% class_success is reached only from the text after it (we grade
  // 20 of 100 so, 6 with the prompt kept), so their predictions cannot have held the prompt.
  const response = completion.split('@@ Response:');
  if (response.length > 1) return extractClassEvalCode(response.slice(1).join('@@ Response:'), model);
  if (model.includes('codegeex')) {
    const parts = completion.split('### Response:');
    return parts.length > 1 ? (parts[1] as string) : completion;
  }
  const patterns = [
    /```python(.*?)```/s,
    /```ruby(.*?)```/s,
    /```scss(.*?)```/s,
    /```python(.*?)/s,
    /```(.*?)```/s,
    /.py(.*?).py/s,
  ];
  for (const pattern of patterns) {
    const group = firstGroup(completion, pattern);
    if (group !== undefined) return group;
  }
  const lines = completion.split('\n');
  const removed = new Set<string>();
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith('class')) break;
    if (!trimmed.startsWith('import') && !trimmed.startsWith('from')) removed.add(line);
  }
  return lines.filter((line) => !removed.has(line)).join('\n');
}

/** Name of the Python global the run sets to its verdict. */
const VERDICT = '_repute_classeval_verdict';

/**
 * What the sandbox runs for one program: the authors' file (imports, program, tests, as one module,
 * since their tests read and set the objects' attributes directly) followed by a runner of every
 * test class; the separate test process only reads the verdict. The program is not kept from the
 * tests here, as it is not in the authors' harness; that is fine for recorded completions, not for
 * agents that could read the tests.
 */
export function classEvalRun(task: ClassEvalTask, code: string): { code: string; test: string } {
  // Some source names carry stray spaces (ClassEval_97: " Words2NumbersTestMain").
  const names = task.test_classes.map((name) => name.trim());
  const runner = [
    'import unittest as _repute_unittest',
    `def _repute_class_success(_names):`,
    '    for _name in _names:',
    '        _suite = _repute_unittest.TestLoader().loadTestsFromTestCase(globals()[_name])',
    '        _result = _repute_unittest.TextTestRunner(verbosity=0).run(_suite)',
    // the authors' get_test_answer: 'success' needs testsRun > 0 and no errors or failures
    '        if _result.testsRun == 0 or _result.errors or _result.failures:',
    '            return False',
    '    return True',
    `${VERDICT} = _repute_class_success(${JSON.stringify(names)})`,
  ].join('\n');
  return {
    code: `${task.import_statement.join('\n')}\n${code}\n${task.test}\n${runner}\n`,
    test: `assert ${VERDICT} is True, "some test class failed"`,
  };
}

function hashRun(run: { code: string; test: string }): string {
  return createHash('sha256').update(run.code).update('\u0000').update(run.test).digest('hex');
}

function readCache(file: string | undefined): Map<string, ClassEvalOutcome & { error?: string }> {
  const cache = new Map<string, ClassEvalOutcome & { error?: string }>();
  if (file === undefined || !existsSync(file)) return cache;
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text.trim().length === 0) continue;
    try {
      const entry = JSON.parse(text) as {
        key: string;
        passed: boolean;
        status: CodeTestResult['status'];
        error?: string;
      };
      if (typeof entry.key === 'string' && typeof entry.passed === 'boolean') cache.set(entry.key, entry);
    } catch {
      // a line cut short by a killed run: that program runs again
    }
  }
  return cache;
}

async function sandboxRun(
  code: string,
  test: string,
  timeoutMs: number,
): Promise<ClassEvalOutcome & { error?: string }> {
  const result = await runCodeTests({ code, test, language: 'python', timeoutMs });
  const error = result.stderr.split('\n').find((line) => /Error|Exception/.test(line));
  return {
    passed: result.passed,
    status: result.status,
    ...(error === undefined ? {} : { error: error.slice(0, 200) }),
  };
}

/**
 * Grades ClassEval's recorded completions (and each task's reference solution) in the sandbox,
 * with a cache of outcomes keyed by the program run.
 *
 * @example
 * const grading = await gradeClassEval({ directory: '../shared/data/classeval', cacheFile: '/tmp/classeval.jsonl' });
 * grading.tasks.filter((task) => task.outcomes['GPT-4-Turbo']?.passed).length;
 */
export async function gradeClassEval(options: GradeClassEvalOptions): Promise<ClassEvalGrading> {
  const { directory, cacheFile, timeoutMs = 20_000, onProgress, runTests = sandboxRun } = options;
  const files = loadClassEvalFiles(directory);
  const models = [...new Set(files.predictions.map((prediction) => prediction.model))].filter(
    (model) => options.models === undefined || options.models.includes(model),
  );
  const tasks = options.taskLimit === undefined ? files.tasks : files.tasks.slice(0, options.taskLimit);
  const byTask = new Map<string, Map<string, string>>();
  for (const prediction of files.predictions) {
    const perModel = byTask.get(prediction.task_id) ?? new Map<string, string>();
    byTask.set(prediction.task_id, perModel);
    perModel.set(prediction.model, prediction.completion);
  }
  const cache = readCache(cacheFile);
  if (cacheFile !== undefined) mkdirSync(dirname(cacheFile), { recursive: true });
  const jobs: Array<{ key: string; run: { code: string; test: string } }> = [];
  const plan = tasks.map((task) => {
    const reference = classEvalRun(task, task.solution_code);
    const referenceKey = hashRun(reference);
    jobs.push({ key: referenceKey, run: reference });
    const perModel = models.map((model) => {
      const completion = byTask.get(task.task_id)?.get(model);
      const code = completion === undefined ? null : extractClassEvalCode(completion, model);
      const present = code !== null && code.trim().length > 0 ? code : null;
      if (present === null) return { model, code: null, key: undefined };
      const run = classEvalRun(task, present);
      const key = hashRun(run);
      jobs.push({ key, run });
      return { model, code: present, key };
    });
    return { task, referenceKey, perModel };
  });
  const pending = jobs.filter(
    (job, index) => !cache.has(job.key) && jobs.findIndex((other) => other.key === job.key) === index,
  );
  let done = 0;
  for (const job of pending) {
    const outcome = await runTests(job.run.code, job.run.test, timeoutMs);
    cache.set(job.key, outcome);
    if (cacheFile !== undefined) appendFileSync(cacheFile, `${JSON.stringify({ key: job.key, ...outcome })}\n`);
    onProgress?.(++done, pending.length);
  }
  return {
    schemaVersion: 1,
    models,
    ran: pending.length,
    tasks: plan.map(({ task, referenceKey, perModel }) => {
      const reference = cache.get(referenceKey) as ClassEvalOutcome & { error?: string };
      const outcomes: Record<string, { code: string | null } & ClassEvalOutcome> = {};
      for (const { model, code, key } of perModel) {
        if (!(byTask.get(task.task_id)?.has(model) ?? false)) continue;
        const outcome = key === undefined ? undefined : cache.get(key);
        outcomes[model] = { code, passed: outcome?.passed ?? false, status: outcome?.status ?? 'failed' };
      }
      return {
        taskId: task.task_id,
        referencePasses: reference.passed,
        ...(reference.passed || reference.error === undefined ? {} : { referenceError: reference.error }),
        outcomes,
      };
    }),
  };
}

/**
 * The graded completions as replay data (`code` tasks): the tasks whose reference solution passes
 * in this sandbox (the others, which import packages the sandbox does not have or depend on the
 * host, cannot be graded here), each model's extracted code as its answer and its outcome as the
 * correctness flag. Answer keys of `code` are the normalized program text, so agreement between two
 * programs means identical code.
 */
export function classEvalReplayData(grading: ClassEvalGrading): ReplayData & { skipped: { referenceFails: string[] } } {
  const gradable = grading.tasks.filter((task) => task.referencePasses);
  const tasks: ReplayItem[] = gradable.map((task) => ({
    id: task.taskId,
    kind: 'code',
    prompt: '',
    proposals: Object.fromEntries(
      Object.entries(task.outcomes).map(([model, outcome]) => [
        model,
        { answer: outcome.code, correct: outcome.passed },
      ]),
    ),
  }));
  const agents: AgentIdentity[] = grading.models.map((model) => ({ id: model, model }));
  return {
    name: 'classeval',
    agents,
    tasks,
    skipped: { referenceFails: grading.tasks.filter((task) => !task.referencePasses).map((task) => task.taskId) },
  };
}
