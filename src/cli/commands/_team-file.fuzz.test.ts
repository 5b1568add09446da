// Property-based fuzzing of the team-file parser (fast-check, seeded): random text and random
// YAML documents built from the file's own keys give a team or a DataFormatError, never another
// error, and never a message holding a value of the file. The number of inputs tried is printed.
// Near-valid team files (a working team with a field of another value or shape now and then, key
// typos, an inline key) reach the checks behind the schema: some parse, most are refused.
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import { parseTeamFile } from './_team-file.js';

const canary = 'sk-fuzz-9f1c2e7a4b';
const keys = [
  'name',
  'agents',
  'protocol',
  'methods',
  'k',
  'tasks',
  'store',
  'cache',
  'reputation',
  'seed',
  'timeoutMs',
  'maxRetries',
  'serve',
  'id',
  'provider',
  'model',
  'baseURL',
  'apiKeyEnv',
  'price',
  'cloneGroup',
  'maxConcurrency',
  'maxResponseBytes',
  'type',
  'rounds',
  'method',
  'kind',
  'schemaVersion',
  'apiKey',
];
const leaf = fc.oneof(
  fc.constant(canary),
  fc.constantFrom(
    'openai-compatible',
    'openai',
    'anthropic',
    'debate',
    'drf',
    'raps',
    'majority',
    'http://127.0.0.1:1/v1',
    'OPENAI_API_KEY',
    'GITHUB_TOKEN',
  ),
  fc.integer({ min: -5, max: 100 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const node = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), tie('array')),
  object: fc.dictionary(fc.constantFrom(...keys), tie('value'), { maxKeys: 6 }),
  array: fc.array(tie('value'), { maxLength: 3 }),
})).object;

function check(text: string): string {
  try {
    parseTeamFile(text, '/teams/team.yaml');
    return 'ok';
  } catch (error) {
    if (!(error instanceof DataFormatError)) throw error;
    expect(error.message).not.toContain(canary);
    return 'DataFormatError';
  }
}

describe('parseTeamFile under random input (fuzzing)', () => {
  it('random text and random documents of its own keys: a team or a DataFormatError without values', () => {
    let tried = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          node.map((value) => stringify(value)),
        ),
        (text) => {
          tried++;
          check(text);
        },
      ),
      { numRuns: 1000, seed: 2029 },
    );
    expect(tried).toBe(1000);
    process.stdout.write(`fuzz: team-file parser: ${tried} inputs, typed errors only, no value echoed\n`);
  }, 60_000);
});

/** A value of the wrong shape for any field (the canary among them: a key where it must not be). */
const wrongValue = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -3, max: 3 }),
  fc.constant(canary),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
/** A key as written, or now and then with a typo (`method` for `methods`, `apikey`): the parser must name it. */
const spelled = (key: string) =>
  fc.oneof(
    { weight: 30, arbitrary: fc.constant(key) },
    { weight: 1, arbitrary: fc.constantFrom(`${key.slice(0, -1)}`, key.toLowerCase(), `${key}s`) },
  );

/** Mostly one of the `valid` values; now and then one of the `invalid` ones, or a value of the wrong shape. */
const rarely = <T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>) =>
  fc.oneof(
    { weight: 18, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: invalid as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: wrongValue },
  );

const nearValidAgent = fc
  .record({
    // Filled in from the agent's position unless this sets it (to a wrong value).
    id: fc.oneof({ weight: 19, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: wrongValue }),
    provider: rarely(fc.constant('openai-compatible'), fc.constantFrom('openai', 'anthropic', 'ollama')),
    model: rarely(fc.constantFrom('m1', 'm2'), fc.constant('')),
    baseURL: rarely(
      fc.constantFrom('http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1/'),
      fc.constantFrom('ftp://x', 'not a url'),
    ),
    price: rarely(
      fc.record({ inputPerMillion: fc.double({ min: 0, max: 5, noNaN: true }) }),
      fc.constant({ inputPerMillion: -1 }),
    ),
    maxConcurrency: rarely(fc.integer({ min: 1, max: 4 }), fc.constant(0)),
    maxResponseBytes: rarely(fc.integer({ min: 1024, max: 1 << 21 }), fc.constant(-1)),
    apiKeyEnv: rarely(fc.constant('LOCAL_LLM_KEY'), fc.constantFrom('GITHUB_TOKEN', 'lower_case')),
    apiKey: fc.constant(canary),
    keys: fc.subarray(['price', 'maxConcurrency', 'maxResponseBytes', 'apiKeyEnv', 'apiKey'] as const, {
      maxLength: 2,
    }),
    modelKey: spelled('model'),
  })
  .map(({ keys, modelKey, price, maxConcurrency, maxResponseBytes, apiKeyEnv, apiKey, model, ...base }) => {
    const extra = { price, maxConcurrency, maxResponseBytes, apiKeyEnv, apiKey };
    return { ...base, [modelKey]: model, ...Object.fromEntries(keys.map((key) => [key, extra[key]])) };
  });

const nearValidTeam = fc
  .record({
    name: rarely(fc.constant('team-a'), fc.constantFrom('', 'a/b')),
    protocol: rarely(
      fc.record({ type: fc.constant('debate'), rounds: rarely(fc.integer({ min: 0, max: 3 }), fc.constant(-1)) }),
      fc.constantFrom({ type: 'drf' }, { type: 'raps' }, { type: 'parliament' }),
    ),
    methods: rarely(
      fc.uniqueArray(fc.constantFrom('majority', 'minirep', 'beta'), { minLength: 1, maxLength: 3 }),
      fc.constant(['nonsense']),
    ),
    tasks: rarely(fc.constant('tasks.jsonl'), fc.constantFrom('../outside.jsonl', '/etc/passwd')),
    store: rarely(fc.constantFrom('repute.db', 'sub/repute.db'), fc.constant('../repute.db')),
    cache: rarely(fc.constantFrom('record', 'replay-only', 'off'), fc.constant('sometimes')),
    seed: rarely(fc.integer({ min: 0, max: 3000 }), fc.constant(-1)),
    timeoutMs: rarely(fc.integer({ min: 1, max: 60_000 }), fc.constant(0)),
    agents: rarely(fc.array(nearValidAgent, { minLength: 1, maxLength: 3 }), fc.constant([])),
    optional: fc.subarray(['cache', 'seed', 'timeoutMs', 'store'] as const),
    methodsKey: spelled('methods'),
  })
  .map(({ optional, methodsKey, cache, seed, timeoutMs, store, methods, agents, ...team }) => {
    const extra = { cache, seed, timeoutMs, store };
    return {
      ...team,
      [methodsKey]: methods,
      agents: Array.isArray(agents)
        ? agents.map((agent, index) => ({ ...agent, id: agent.id ?? `agent-${index + 1}` }))
        : agents,
      ...Object.fromEntries(optional.map((key) => [key, extra[key]])),
    };
  });

describe('parseTeamFile under near-valid team files (fuzzing)', () => {
  it('a team or a DataFormatError, never a value of the file in the message, and both outcomes reached', () => {
    let tried = 0;
    const outcomes = new Map<string, number>();
    fc.assert(
      fc.property(nearValidTeam, (team) => {
        tried++;
        const verdict = check(stringify(team));
        outcomes.set(verdict, (outcomes.get(verdict) ?? 0) + 1);
      }),
      { numRuns: 1000, seed: 2030 },
    );
    expect(tried).toBe(1000);
    process.stdout.write(
      `fuzz: team-file parser, near-valid files: ${tried} inputs, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}\n`,
    );
    expect(outcomes.get('ok') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('DataFormatError') ?? 0).toBeGreaterThan(0);
  }, 60_000);
});
