// Property-based fuzzing of the team-file parser (fast-check, seeded): random text and random
// YAML documents built from the file's own keys give a team or a DataFormatError, never another
// error, and never a message holding a value of the file. The number of inputs tried is printed.
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
