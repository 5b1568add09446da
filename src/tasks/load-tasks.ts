import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { answerKinds, type AnswerKind } from '../core/answers/answer-kind.js';
import { DataFormatError } from '../core/errors.js';
import type { Task } from '../core/task.js';

/** A task read from a user file; `reference` is present only when the file gives one. */
export interface LoadedTask {
  readonly task: Task;
  /** Reference answer in the kind's raw form, for grading (never shown to decision paths). */
  readonly reference?: string;
}

const taskLineSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    prompt: z.string().min(1),
    kind: z.enum(answerKinds as unknown as [AnswerKind, ...AnswerKind[]]),
    reference: z.union([z.string(), z.number()]).optional(),
    difficulty: z.number().min(0).max(1).optional(),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .strict();

/**
 * Parses task JSON Lines text: one object per line with `prompt`, `kind` (one of the answer kinds),
 * optional `reference`, `id` (default `line-N`), `difficulty` in [0, 1] and `metadata`. Blank lines
 * are skipped; anything else that is not a valid task throws a `DataFormatError` naming the file and
 * the 1-based line.
 *
 * @example
 * parseTasks('{"prompt":"What is 2+3?","kind":"number","reference":"5"}\n', 'tasks.jsonl');
 */
export function parseTasks(text: string, file: string): LoadedTask[] {
  const tasks: LoadedTask[] = [];
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new DataFormatError({
        file,
        line,
        message: `not valid JSON (${(error as Error).message}); each line must be one JSON object like {"prompt":"What is 2+3?","kind":"number","reference":"5"}`,
        cause: error,
      });
    }
    const parsed = taskLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(line)';
      const got =
        issue && issue.path.length > 0
          ? JSON.stringify(
              issue.path.reduce<unknown>(
                (node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey],
                value,
              ),
            )
          : JSON.stringify(value)?.slice(0, 80);
      throw new DataFormatError({
        file,
        line,
        message: `field ${field}: ${issue?.message ?? 'invalid'} (got ${got}); a task line needs "prompt" (string) and "kind" (${answerKinds.join('|')}), optionally "id", "reference", "difficulty" in [0, 1], "metadata"`,
      });
    }
    const data = parsed.data;
    const id = data.id === undefined ? `line-${line}` : String(data.id);
    const earlier = seen.get(id);
    if (earlier !== undefined) {
      throw new DataFormatError({
        file,
        line,
        message: `duplicate task id ${JSON.stringify(id)} (first used on line ${earlier}); task ids must be unique within a file`,
      });
    }
    seen.set(id, line);
    const task: Task = {
      id,
      kind: data.kind,
      prompt: data.prompt,
      ...(data.difficulty === undefined ? {} : { difficulty: data.difficulty }),
      ...(data.metadata === undefined ? {} : { metadata: data.metadata }),
    };
    tasks.push(data.reference === undefined ? { task } : { task, reference: String(data.reference) });
  });
  if (tasks.length === 0) {
    throw new DataFormatError({
      file,
      message: 'the file holds no tasks; add one JSON object per line with "prompt" and "kind"',
    });
  }
  return tasks;
}

/**
 * Reads a user task file (JSON Lines, see {@link parseTasks}).
 *
 * @example
 * const tasks = await loadTasks('tasks.jsonl');
 */
export async function loadTasks(file: string): Promise<LoadedTask[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new DataFormatError({
      file,
      message: `cannot read the task file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path`,
      cause: error,
    });
  }
  return parseTasks(text, file);
}
