// Reads and validates a team file (YAML) for `repute run`: the trust boundary of docs/security.md.
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { closest } from '../../core/_closest.js';
import { DataFormatError } from '../../core/errors.js';
import { isPostgresUrl, postgresUrlHasPassword, redactPostgresUrl } from '../../store/_postgres-url.js';
import { answerKinds } from '../../core/answers/answer-kind.js';
import { checkKeyDestination, defaultApiKeyEnv } from '../../llm/key-policy.js';
import { allDebateMethodNames, defaultServeMethod } from '../../protocols/debate/methods.js';
import type { ProtocolConfig } from '../../protocols/protocol.js';
import { defaultProtocolType, getProtocol, protocolTypes, UnknownProtocolError } from '../../protocols/registry.js';

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
    apiKeyEnv: z
      .string()
      .regex(
        /^[A-Za-z_][A-Za-z0-9_]*$/,
        'must be the NAME of an environment variable, e.g. OPENAI_API_KEY (never the key itself)',
      )
      .optional(),
    price: priceSchema.optional(),
    cloneGroup: z.string().min(1).optional(),
    maxConcurrency: z.number().int().min(1).optional(),
    // Most bytes of one reply of this agent's endpoint (default 1 MiB), enforced while reading.
    maxResponseBytes: z.number().int().min(1).optional(),
  })
  .strict();

const sandboxLimitsShape = {
  // Wall-clock limit of one program's run, in ms (the sandbox default: 10000).
  timeoutMs: z.number().int().min(1).optional(),
  // Memory of one run in MiB (the sandbox default: 512).
  memoryMb: z.number().int().min(16).optional(),
  // Programs run at once (default: the machine's CPUs).
  concurrency: z.number().int().min(1).optional(),
};

/**
 * The `verifier:` section: an LLM judge (its own endpoint, model and key, like an agent) or an
 * execution verifier (each `code` proposal run against the task's public tests in the sandbox).
 */
/** A verifier's measured rates (`minirep-vg` starts from them): in (0, 1), as the replay states them. */
const calibrationSchema = z
  .object({
    // P(judged wrong | wrong).
    sensitivity: z.number().gt(0).lt(1),
    // P(judged right | right).
    specificity: z.number().gt(0).lt(1),
  })
  .strict();

const verifierSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('llm-judge'),
      // Agent id the judge's calls are booked under in the ledger; must differ from every agent's id.
      id: z.string().min(1).default('judge'),
      provider: agentSchema.shape.provider,
      model: agentSchema.shape.model,
      baseURL: agentSchema.shape.baseURL,
      apiKeyEnv: agentSchema.shape.apiKeyEnv,
      price: agentSchema.shape.price,
      maxConcurrency: agentSchema.shape.maxConcurrency,
      maxResponseBytes: agentSchema.shape.maxResponseBytes,
      // The judge's instructions (default: a strict grader asking for {"correct", "confidence", "reason"}).
      system: z.string().min(1).optional(),
      calibration: calibrationSchema.optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('execution'),
      // The task line's metadata field that holds the public tests (Python) a proposal must pass.
      testsField: z.string().min(1).default('tests'),
      ...sandboxLimitsShape,
      calibration: calibrationSchema.optional(),
    })
    .strict(),
]);

/**
 * The team file's schema. `protocol` is checked here only for its `type`; the block is then parsed
 * with the registered protocol's own schema, and `methods` against the names of every registered
 * protocol (then against the chosen protocol's).
 */
function teamSchema() {
  const methodNames = [...new Set(protocolTypes().flatMap((type) => getProtocol(type).methods.names))];
  return z
    .object({
      schemaVersion: z.literal(1).optional(),
      name: z.string().min(1),
      agents: z.array(agentSchema).min(1),
      protocol: z.looseObject({ type: z.string().min(1) }).default({ type: defaultProtocolType }),
      // Debate: the compared methods (default majority, minirep). DRF and RAPS: optional aggregators
      // compared on the protocol's own proposals (the protocol's decision rule always runs).
      methods: z
        .array(z.enum(methodNames as [string, ...string[]]))
        .min(1)
        .optional(),
      // Agents per task, for every command (DRF's team size unless protocol.k gives it; refused by RAPS).
      k: z.number().int().min(1).optional(),
      tasks: z.string().min(1),
      store: z.string().min(1).default('repute.db'),
      cache: z.enum(['record', 'replay-only', 'off']).default('record'),
      reputation: z.enum(['continue', 'fresh']).default('continue'),
      seed: z.number().int().default(2027),
      timeoutMs: z.number().int().min(1).default(60_000),
      maxRetries: z.number().int().min(0).max(10).default(2),
      // Keep each call's prompt and completion in the store's ledger (the traces); false keeps only
      // tokens, cost and timing.
      captureContent: z.boolean().default(true),
      // How long a recorded reply is reused, in ms (none: forever, the record/replay default).
      cacheTtlMs: z.number().int().min(1).optional(),
      // Judges each proposal before aggregation (debate runs and `repute serve`); none by default.
      verifier: verifierSchema.optional(),
      // `repute serve`: the method that decides chat requests and their default answer kind.
      serve: z
        .object({
          method: z.enum(allDebateMethodNames).default(defaultServeMethod),
          kind: z.enum(answerKinds as unknown as ['exact', ...string[]]).default('exact'),
          // Decide once `quorum` agents answered or `deadlineMs` passed (a request's
          // x-repute-deadline-ms overrides it); late answers still count for reputation.
          deadlineMs: z.number().int().min(1).max(600_000).optional(),
          quorum: z.number().int().min(1).optional(),
          // Skip an agent after `failureThreshold` failures in a row, probe it after `cooldownMs`; false: never skip.
          breaker: z
            .union([
              z.literal(false),
              z
                .object({
                  failureThreshold: z.number().int().min(1).default(3),
                  cooldownMs: z.number().int().min(0).default(30_000),
                })
                .strict(),
            ])
            .default({ failureThreshold: 3, cooldownMs: 30_000 }),
        })
        .strict()
        .default({ method: defaultServeMethod, kind: 'exact', breaker: { failureThreshold: 3, cooldownMs: 30_000 } }),
    })
    .strict();
}

/** A validated team file; `tasks` and `store` are resolved (inside the file's folder unless given on the command line). */
export type TeamFile = Omit<z.infer<ReturnType<typeof teamSchema>>, 'methods' | 'protocol'> & {
  /** The validated `protocol` block (its protocol's schema, defaults filled in). */
  readonly protocol: ProtocolConfig;
  /** Debate: the methods compared (default `majority`, `minirep`); DRF and RAPS: aggregators compared on the protocol's proposals (default none). */
  readonly methods: string[];
  readonly file: string;
};

/** What the command line may add to or override in a team file (the trust boundary of docs/security.md). */
export interface TeamFileOverrides {
  /** Task file from the command line: may be anywhere; overrides the file's `tasks`. */
  readonly tasks?: string;
  /** Store from the command line: may be anywhere; overrides the file's `store`. */
  readonly store?: string;
  /**
   * Key variables the person running the command allowed by name (`--allow-env`, `REPUTE_ALLOW_ENV`):
   * each may be sent to any endpoint of the file. Without it, only a provider's own key to its
   * official host is sent (`src/llm/key-policy.ts`). @default []
   */
  readonly allowEnv?: readonly string[];
  /** Set only by a process whose parent read the same file with the check (a RAPS agent process). @default false */
  readonly keyDestinationsChecked?: boolean;
}

/**
 * Reads a team YAML file; a bad field throws `DataFormatError` naming the file and the field and
 * saying what is expected, never echoing a value of the file (it may hold a pasted key). Relative
 * `tasks` and `store` paths are resolved against the file's folder and must stay inside it.
 */
export function readTeamFile(file: string, overrides: TeamFileOverrides = {}): TeamFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new DataFormatError({
      file,
      message: `cannot read the team file (${(error as NodeJS.ErrnoException).code ?? 'read error'}); check the path`,
      cause: error,
    });
  }
  return parseTeamFile(text, file, overrides);
}

/** Parses team YAML text (see {@link readTeamFile}). */
export function parseTeamFile(text: string, file: string, overrides: TeamFileOverrides = {}): TeamFile {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    // The parser's message quotes the offending line, which may hold a key: keep position and code only.
    const position = (error as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
    const code = (error as { code?: string }).code ?? 'PARSE_ERROR';
    throw new DataFormatError({
      file,
      ...(position === undefined ? {} : { line: position.line }),
      message: `not valid YAML${position === undefined ? '' : ` at line ${position.line}, column ${position.col}`} (${code}); fix the syntax there (the line is not shown: it may hold a secret)`,
    });
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    refuseInlineKeys(value as Record<string, unknown>, file);
  const parsed = teamSchema().safeParse(value);
  if (!parsed.success) throw schemaError(parsed.error, [], file, value);
  const data = parsed.data;
  let protocol: ReturnType<typeof getProtocol>;
  try {
    protocol = getProtocol(data.protocol.type);
  } catch (error) {
    if (!(error instanceof UnknownProtocolError)) throw error;
    throw new DataFormatError({ file, message: `field protocol.type: ${error.message}` });
  }
  const config = protocol.configSchema.safeParse(data.protocol);
  if (!config.success) throw schemaError(config.error, ['protocol'], file, value);
  const methods = data.methods ?? [...protocol.methods.defaults];
  const allowed = protocol.methods.names;
  methods.forEach((method, index) => {
    if (!allowed.includes(method))
      throw new DataFormatError({
        file,
        message: `field methods.${index}: not a method of protocol ${protocol.type}; use a subset of ${allowed.join(', ')}`,
      });
  });
  const team = { ...data, protocol: config.data, methods };
  const problem = protocol.checkTeam?.({
    config: config.data,
    agentIds: team.agents.map((agent) => agent.id),
    k: team.k,
  });
  if (problem !== undefined) throw new DataFormatError({ file, message: `field ${problem.field}: ${problem.message}` });
  const ids = new Map<string, number>();
  const allowEnv = overrides.allowEnv ?? [];
  // An endpoint's checks, for an agent and for an LLM judge alike (docs/security.md).
  const checkEndpoint = (
    field: string,
    endpoint: { provider: keyof typeof defaultApiKeyEnv; baseURL?: string | undefined; apiKeyEnv?: string | undefined },
  ): void => {
    if (endpoint.provider === 'openai-compatible' && endpoint.baseURL === undefined) {
      throw new DataFormatError({
        file,
        message: `field ${field}.baseURL: required for provider openai-compatible (e.g. http://127.0.0.1:11434/v1 for Ollama)`,
      });
    }
    if (endpoint.baseURL !== undefined) {
      const url = new URL(endpoint.baseURL);
      if (url.username !== '' || url.password !== '' || url.search !== '') {
        throw new DataFormatError({
          file,
          message: `field ${field}.baseURL: must not carry credentials or a query string; put the key in an environment variable and name it in apiKeyEnv`,
        });
      }
    }
    const variable = endpoint.apiKeyEnv ?? defaultApiKeyEnv[endpoint.provider];
    const refusal =
      variable === undefined || overrides.keyDestinationsChecked === true
        ? undefined
        : checkKeyDestination({ provider: endpoint.provider, variable, baseURL: endpoint.baseURL, allowEnv });
    if (refusal !== undefined)
      throw new DataFormatError({
        file,
        message: `field ${field}.${endpoint.apiKeyEnv === undefined ? 'provider' : 'apiKeyEnv'}: ${refusal.message}`,
      });
  };
  team.agents.forEach((agent, index) => {
    const earlier = ids.get(agent.id);
    if (earlier !== undefined)
      throw new DataFormatError({
        file,
        message: `field agents.${index}.id: the same id as agents.${earlier}.id; ids must be unique`,
      });
    ids.set(agent.id, index);
    checkEndpoint(`agents.${index}`, agent);
  });
  const verifier = team.verifier;
  if (verifier !== undefined && protocol.usesVerifier !== true)
    throw new DataFormatError({
      file,
      message: `field verifier: protocol ${protocol.type} does not use a verifier; remove the verifier section, or use protocol type ${protocolTypes()
        .filter((type) => getProtocol(type).usesVerifier === true)
        .join(' or ')}`,
    });
  const needVerifier = protocol.methods.verifierOnly ?? [];
  if (verifier === undefined) {
    const index = methods.findIndex((method) => needVerifier.includes(method));
    if (index !== -1)
      throw new DataFormatError({
        file,
        message: `field methods.${index}: ${methods[index]} needs a verifier; add a verifier section (docs/agents.md, Verifiers) or remove the method`,
      });
    if (needVerifier.includes(team.serve.method))
      throw new DataFormatError({
        file,
        message: `field serve.method: ${team.serve.method} needs a verifier; add a verifier section (docs/agents.md, Verifiers) or serve another method`,
      });
  }
  if (verifier?.type === 'llm-judge') {
    const clash = ids.get(verifier.id);
    if (clash !== undefined)
      throw new DataFormatError({
        file,
        message: `field verifier.id: the same id as agents.${clash}.id; the judge books its calls under its own id (and never sits in the team), so give it another, e.g. id: judge`,
      });
    checkEndpoint('verifier', verifier);
  }
  const folder = dirname(resolve(file));
  const tasks =
    overrides.tasks !== undefined ? resolve(overrides.tasks) : insideFolder(file, folder, 'tasks', team.tasks);
  const given = overrides.store ?? team.store;
  if (isPostgresUrl(given) && postgresUrlHasPassword(given)) {
    throw new DataFormatError({
      file,
      message: `field store: the PostgreSQL URL ${redactPostgresUrl(given)} holds a password; remove it from the URL and give it in the PGPASSWORD environment variable or ~/.pgpass`,
    });
  }
  // A postgres:// URL names a server's database (docs/scaling.md), not a file: kept as written.
  const store =
    given === ':memory:' || isPostgresUrl(given)
      ? given
      : overrides.store !== undefined
        ? resolve(overrides.store)
        : insideFolder(file, folder, 'store', team.store);
  return { ...team, tasks, store, file: resolve(file) };
}

/** The first issue of a failed parse as a `DataFormatError` naming the field (under `prefix`), never its value. */
function schemaError(error: z.ZodError, prefix: readonly PropertyKey[], file: string, root: unknown): DataFormatError {
  const issue = error.issues[0];
  const fullPath = [...prefix, ...(issue?.path ?? [])];
  const path = fullPath.map(String).join('.') || '(top level)';
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}${suggestKeys(issue.keys, fullPath, root)}; allowed keys are listed in examples/team.yaml`
      : `${issue?.message ?? 'invalid'}; see examples/team.yaml`;
  // Values are never echoed: a team file may hold a pasted key anywhere.
  return new DataFormatError({ file, message: `field ${path}: ${message}` });
}

/** ` (did you mean serve?)` for unknown keys close to a known key of the object they sit in; else ''. */
function suggestKeys(keys: readonly string[], path: readonly PropertyKey[], root: unknown): string {
  const known = knownKeysAt(path, root);
  const hints = keys.flatMap((key) => {
    const match = closest(key, known);
    return match === undefined ? [] : [keys.length === 1 ? match : `${match} for ${key}`];
  });
  return hints.length === 0 ? '' : ` (did you mean ${hints.join(', ')}?)`;
}

/** The keys the schema allows in the object at `path` of the team file (top level, an agent, its price, serve, protocol). */
function knownKeysAt(path: readonly PropertyKey[], root: unknown): string[] {
  const [first, second, third] = path;
  if (path.length === 0) return Object.keys(teamSchema().shape);
  if (first === 'agents' && path.length === 2) return Object.keys(agentSchema.shape);
  if (first === 'agents' && third === 'price' && path.length === 3) return Object.keys(priceSchema.shape);
  if (first === 'serve' && path.length === 1) return ['method', 'kind', 'deadlineMs', 'quorum', 'breaker'];
  if (first === 'verifier' && path.length === 1) {
    const type = (root as { verifier?: { type?: unknown } } | null)?.verifier?.type;
    const option = verifierSchema.options.find((candidate) => candidate.shape.type.value === type);
    return option === undefined ? [] : Object.keys(option.shape);
  }
  if (first === 'protocol' && path.length === 1 && second === undefined) {
    const type = (root as { protocol?: { type?: unknown } } | null)?.protocol?.type;
    const known =
      typeof type === 'string' && protocolTypes().includes(type) ? getProtocol(type) : getProtocol(defaultProtocolType);
    // A protocol's schema is a zod object (its keys are the block's), or another zod type (no hint).
    const shape = (known.configSchema as { shape?: Record<string, unknown> }).shape;
    return shape === undefined ? [] : Object.keys(shape);
  }
  return [];
}

/** `apiKey`, `key`, `token`... anywhere in the file: refused with a pointer to `apiKeyEnv`, the value never shown. */
function refuseInlineKeys(root: Record<string, unknown>, file: string): void {
  const secretKey = /^(api[-_]?key|key|token|secret|password|authorization)$/i;
  const visit = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, String(index)]));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      if (secretKey.test(key)) {
        throw new DataFormatError({
          file,
          message: `field ${[...path, key].join('.')}: a team file must not hold a key; remove it (and rotate the key if this file was shared), put the key in an environment variable and name that variable in apiKeyEnv, e.g. apiKeyEnv: OPENAI_API_KEY`,
        });
      }
      visit(child, [...path, key]);
    }
  };
  visit(root, []);
}

/** A team file's own path may only point inside its folder (symlinks followed): a shared file cannot read /etc/passwd. */
function insideFolder(file: string, folder: string, field: string, path: string): string {
  const target = resolve(folder, path);
  const realFolder = realOrSelf(folder);
  const realTarget = realOrSelf(target);
  const rel = relative(realFolder, realTarget);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new DataFormatError({
      file,
      message: `field ${field}: the path leaves the team file's folder ${folder}; a team file may only name files inside its own folder: move the file there, or pass --${field} <path> on the command line`,
    });
  }
  return target;
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest (for files not created yet). */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realOrSelf(parent), basename(path));
  }
}
