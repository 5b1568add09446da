// Reads and validates a team file (YAML) for `repute run`.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DataFormatError } from '../../core/errors.js';
import { debateMethodNames } from '../../protocols/debate/methods.js';

const priceSchema = z
  .object({
    inputPerMillion: z.number().min(0).optional(),
    outputPerMillion: z.number().min(0).optional(),
    perCall: z.number().min(0).optional(),
  })
  .strict();

const agentSchema = z
  .object({
    id: z.string().min(1),
    provider: z.enum(['openai-compatible', 'openai', 'anthropic']),
    model: z.string().min(1),
    baseURL: z.string().url().optional(),
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the NAME of an environment variable, e.g. OPENAI_API_KEY (never the key itself)').optional(),
    price: priceSchema.optional(),
    cloneGroup: z.string().min(1).optional(),
    maxConcurrency: z.number().int().min(1).optional(),
  })
  .strict();

const teamSchema = z
  .object({
    schemaVersion: z.literal(1).optional(),
    name: z.string().min(1),
    agents: z.array(agentSchema).min(1),
    protocol: z.object({ type: z.literal('debate'), rounds: z.number().int().min(0).max(20).default(1) }).strict().default({ type: 'debate', rounds: 1 }),
    methods: z.array(z.enum(debateMethodNames)).min(1).default(['majority', 'minirep']),
    k: z.number().int().min(1).optional(),
    tasks: z.string().min(1),
    store: z.string().min(1).default('repute.db'),
    cache: z.enum(['record', 'replay-only', 'off']).default('record'),
    reputation: z.enum(['continue', 'fresh']).default('continue'),
    seed: z.number().int().default(2027),
    timeoutMs: z.number().int().min(1).default(60_000),
    maxRetries: z.number().int().min(0).max(10).default(2),
  })
  .strict();

/** A validated team file; `tasks` and `store` are resolved against the file's folder. */
export type TeamFile = z.infer<typeof teamSchema> & { readonly file: string };

/**
 * Reads a team YAML file; a bad field throws `DataFormatError` naming the file, the field and the
 * value, and saying what is expected. Relative `tasks` and `store` paths are resolved against the
 * file's folder.
 */
export function readTeamFile(file: string): TeamFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new DataFormatError({ file, message: `cannot read the team file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path`, cause: error });
  }
  return parseTeamFile(text, file);
}

/** Parses team YAML text (see {@link readTeamFile}). */
export function parseTeamFile(text: string, file: string): TeamFile {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
    throw new DataFormatError({ file, ...(line === undefined ? {} : { line }), message: `not valid YAML: ${(error as Error).message.split('\n')[0]}`, cause: error });
  }
  const parsed = teamSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') || '(top level)';
    // A bad apiKeyEnv may be a pasted key: never echo it.
    const got = issue?.path.at(-1) === 'apiKeyEnv' ? '[redacted]' : issue?.path.reduce<unknown>((node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey], value);
    throw new DataFormatError({ file, message: `field ${path}: ${issue?.message ?? 'invalid'} (got ${JSON.stringify(got)}); see examples/team.yaml` });
  }
  const team = parsed.data;
  const ids = new Set<string>();
  team.agents.forEach((agent, index) => {
    if (ids.has(agent.id)) throw new DataFormatError({ file, message: `field agents.${index}.id: duplicate agent id ${JSON.stringify(agent.id)}; ids must be unique` });
    ids.add(agent.id);
    if (agent.provider === 'openai-compatible' && agent.baseURL === undefined) {
      throw new DataFormatError({ file, message: `field agents.${index}.baseURL: required for provider openai-compatible (e.g. http://127.0.0.1:11434/v1 for Ollama)` });
    }
  });
  const folder = dirname(resolve(file));
  return { ...team, tasks: resolve(folder, team.tasks), store: team.store === ':memory:' ? team.store : resolve(folder, team.store), file: resolve(file) };
}
