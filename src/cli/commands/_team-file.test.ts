import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import { parseTeamFile, readTeamFile } from './_team-file.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const agent =
  'agents:\n  - id: a\n    provider: openai-compatible\n    model: m\n    baseURL: http://127.0.0.1:11434/v1\n';

describe('parseTeamFile', () => {
  it('applies defaults and resolves paths against the file', () => {
    const team = parseTeamFile(`name: t\ntasks: tasks.jsonl\n${agent}`, '/teams/team.yaml');
    expect(team).toMatchObject({
      name: 't',
      tasks: '/teams/tasks.jsonl',
      store: '/teams/repute.db',
      cache: 'record',
      reputation: 'continue',
      seed: 2027,
      methods: ['majority', 'minirep'],
      protocol: { type: 'debate', rounds: 1 },
    });
  });

  it('keeps a postgres:// store URL as written and refuses one holding a password, never showing it', () => {
    const url = 'postgres://repute@db.internal:5432/teams';
    expect(parseTeamFile(`name: t\ntasks: tasks.jsonl\nstore: ${url}\n${agent}`, '/teams/team.yaml').store).toBe(url);
    expect(
      parseTeamFile(`name: t\ntasks: tasks.jsonl\n${agent}`, '/teams/team.yaml', { store: `${url}?sslmode=require` })
        .store,
    ).toBe(`${url}?sslmode=require`);
    let message = '';
    try {
      parseTeamFile(
        `name: t\ntasks: tasks.jsonl\nstore: postgres://repute:s3cret@db/teams\n${agent}`,
        '/teams/team.yaml',
      );
    } catch (error) {
      expect(error).toBeInstanceOf(DataFormatError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/field store: .*postgres:\/\/repute:\*\*\*@db\/teams holds a password; .*PGPASSWORD/);
    expect(message).not.toContain('s3cret');
  });

  it('names the file and field of bad input and what is expected, never the value', () => {
    const cases: Array<[string, RegExp]> = [
      [
        `name: t\ntasks: x\nmethods: [majority, vote]\n${agent}`,
        /team\.yaml: field methods\.1: Invalid option: expected one of "majority"/,
      ],
      [
        `name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai-compatible\n    model: m\n`,
        /field agents\.0\.baseURL: required for provider openai-compatible/,
      ],
      [
        `name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai\n    model: m\n    apiKeyEnv: sk-live-123\n`,
        /field agents\.0\.apiKeyEnv: must be the NAME of an environment variable/,
      ],
      [
        `name: t\ntasks: x\n${agent}  - id: a\n    provider: anthropic\n    model: c\n`,
        /field agents\.1\.id: the same id as agents\.0\.id/,
      ],
      [`name: t\ntasks: x\nprotocol: { type: debate, rounds: -1 }\n${agent}`, /field protocol\.rounds/],
      ['name: [unclosed', /team\.yaml:1: not valid YAML at line 1, column \d+ \(\w+\)/],
    ];
    for (const [text, pattern] of cases) {
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(DataFormatError);
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(pattern);
    }
  });

  it('accepts a DRF protocol with its defaults and no methods', () => {
    const team = parseTeamFile(`name: t\ntasks: x\nprotocol: { type: drf, k: 1 }\n${agent}`, '/teams/team.yaml');
    expect(team.methods).toEqual([]);
    expect(team.protocol).toEqual({
      type: 'drf',
      k: 1,
      variant: 'corrected',
      delta: 0.7,
      threshold: 0.3,
      exploration: 1,
      defence: 'none',
      credibilityFloor: 0.01,
      w0: 0.5,
      beta: 0.2,
      initialReputation: 0.5,
      priorTokens: { input: 500, output: 200 },
    });
    expect(
      parseTeamFile(
        `name: t\ntasks: x\nprotocol: { type: drf }\nmethods: [plurality, weighted-plurality]\n${agent}`,
        'team.yaml',
      ).methods,
    ).toEqual(['plurality', 'weighted-plurality']);
  });

  it('names the field of a bad DRF protocol and what is expected', () => {
    const cases: Array<[string, RegExp]> = [
      [`name: t\ntasks: x\nprotocol: { type: drf, delta: 1.5 }\n${agent}`, /field protocol\.delta: /],
      [
        `name: t\ntasks: x\nprotocol: { type: drf, k: 2 }\n${agent}`,
        /field protocol\.k: the team size exceeds the 1 agents listed; use k <= 1/,
      ],
      [`name: t\ntasks: x\nprotocol: { type: drf, defence: magic }\n${agent}`, /field protocol\.defence: /],
      [`name: t\ntasks: x\nprotocol: { type: drf, rounds: 2 }\n${agent}`, /field protocol: .*rounds/],
      [
        `name: t\ntasks: x\nprotocol: { type: drf }\nmethods: [minirep]\n${agent}`,
        /field methods\.0: not a method of protocol drf; use a subset of plurality, weighted-plurality/,
      ],
      [`name: t\ntasks: x\nprotocol: { type: gossip }\n${agent}`, /field protocol\.type/],
    ];
    for (const [text, pattern] of cases) {
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(DataFormatError);
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(pattern);
    }
  });

  it('names the nearest registered protocol of an unknown type', () => {
    expect(() => parseTeamFile(`name: t\ntasks: x\nprotocol: { type: drff }\n${agent}`, 'team.yaml')).toThrow(
      /field protocol\.type: unknown protocol "drff"; did you mean "drf"\? Registered protocols: debate, drf, raps/,
    );
  });

  it("gives the top-level k one meaning for every command: DRF's team size, refused by RAPS", () => {
    const three = `${agent}  - id: b\n    provider: openai-compatible\n    model: m\n    baseURL: http://127.0.0.1:11434/v1\n  - id: c\n    provider: openai-compatible\n    model: m\n    baseURL: http://127.0.0.1:11434/v1\n`;
    // DRF: k alone, or equal to protocol.k, is accepted (repute run then uses it as DRF's team size).
    expect(parseTeamFile(`name: t\ntasks: x\nk: 2\nprotocol: { type: drf }\n${three}`, 'team.yaml').k).toBe(2);
    expect(parseTeamFile(`name: t\ntasks: x\nk: 2\nprotocol: { type: drf, k: 2 }\n${three}`, 'team.yaml').k).toBe(2);
    const cases: Array<[string, RegExp]> = [
      [
        `name: t\ntasks: x\nk: 2\nprotocol: { type: drf, k: 3 }\n${three}`,
        /field k: the team size 2 differs from protocol\.k 3; give DRF's team size once/,
      ],
      [`name: t\ntasks: x\nk: 4\nprotocol: { type: drf }\n${three}`, /field k: the team size exceeds the 3 agents/],
      [
        `name: t\ntasks: x\nk: 2\nprotocol: { type: raps, topK: 1 }\n${three}`,
        /field k: RAPS has every agent work on every task, so there is no team size to pick; remove k/,
      ],
    ];
    for (const [text, pattern] of cases) {
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(DataFormatError);
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(pattern);
    }
  });

  it('accepts a RAPS protocol with its defaults and checks it against the team', () => {
    const two = `${agent}  - id: b\n    provider: openai-compatible\n    model: m\n    baseURL: http://127.0.0.1:11434/v1\n`;
    const team = parseTeamFile(
      `name: t\ntasks: x\nprotocol: { type: raps, topK: 1, subscriptions: { a: "sums" } }\n${two}`,
      'team.yaml',
    );
    expect(team.methods).toEqual([]);
    expect(team.protocol).toEqual({
      type: 'raps',
      topK: 1,
      tau: 0.4,
      maxRounds: 4,
      doneQuorum: 0.6,
      transport: 'inproc',
      floor: 0.05,
      trustPolicy: 'filter',
      lambda: 0.9,
      delta: 1.5,
      omega: 0.3,
      witness: true,
      refine: true,
      subscriptions: { a: 'sums' },
      replyTimeoutMs: 120000,
    });
    const cases: Array<[string, RegExp]> = [
      [
        `name: t\ntasks: x\nprotocol: { type: raps, topK: 3 }\n${two}`,
        /field protocol\.topK: more recipients per publication than the 1 other agents; use topK <= 1/,
      ],
      [`name: t\ntasks: x\nprotocol: { type: raps, topK: 1, tau: 1 }\n${two}`, /field protocol\.tau: /],
      [`name: t\ntasks: x\nprotocol: { type: raps, topK: 1, transport: udp }\n${two}`, /field protocol\.transport: /],
      [
        `name: t\ntasks: x\nprotocol: { type: raps, topK: 1, natsUrl: "nats://127.0.0.1:4222" }\n${two}`,
        /field protocol\.natsUrl: given with transport inproc; set transport: nats/,
      ],
      [
        `name: t\ntasks: x\nprotocol: { type: raps, topK: 1, transport: nats, natsUrl: "http://x" }\n${two}`,
        /field protocol\.natsUrl: must be a NATS URL/,
      ],
      [
        `name: t\ntasks: x\nprotocol: { type: raps, topK: 1, subscriptions: { zed: "x" } }\n${two}`,
        /field protocol\.subscriptions\.zed: no agent has that id; use one of a, b/,
      ],
    ];
    for (const [text, pattern] of cases) {
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(DataFormatError);
      expect(() => parseTeamFile(text, 'team.yaml'), text).toThrow(pattern);
    }
  });

  it('never echoes a pasted key', () => {
    const text = `name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai\n    model: m\n    apiKeyEnv: sk-live-123\n`;
    // Parsing must throw (a missing throw fails here, not silently with an empty message), and the message names
    // the field without the value.
    expect(() => parseTeamFile(text, 'team.yaml')).toThrow(DataFormatError);
    const error = (() => {
      try {
        parseTeamFile(text, 'team.yaml');
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('parseTeamFile accepted a pasted key');
    })();
    expect(error.message).toMatch(/field agents\.0\.apiKeyEnv: must be the NAME of an environment variable/);
    expect(error.message).not.toContain('sk-live-123');
    expect(JSON.stringify(error)).not.toContain('sk-live-123');
  });

  const canary = 'sk-canary-7d1e0b5a9c3f';
  const messageOf = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a throw');
  };

  it('refuses apiKey: pointing to apiKeyEnv, without printing the key (old main printed the whole agent)', () => {
    const message = messageOf(() =>
      parseTeamFile(
        `name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai\n    model: m\n    apiKey: ${canary}\n`,
        'team.yaml',
      ),
    );
    expect(message).toMatch(/field agents\.0\.apiKey: a team file must not hold a key.*apiKeyEnv: OPENAI_API_KEY/);
    expect(message).not.toContain(canary);
  });

  it('suggests the key meant for a typo, at the top level, in an agent, in serve and in the protocol', () => {
    const cases: Array<[string, string]> = [
      [
        `name: t\ntasks: x\nmethod: [majority]\n${agent}`,
        'field (top level): unknown key method (did you mean methods?)',
      ],
      [
        'name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai-compatible\n    model: m\n    baseUrl: http://127.0.0.1:1/v1\n',
        'field agents.0: unknown key baseUrl (did you mean baseURL?)',
      ],
      [
        `name: t\ntasks: x\nserve: { methd: majority }\n${agent}`,
        'field serve: unknown key methd (did you mean method?)',
      ],
      [
        `name: t\ntasks: x\nprotocol: { type: debate, round: 2 }\n${agent}`,
        'field protocol: unknown key round (did you mean rounds?)',
      ],
    ];
    for (const [text, expected] of cases) expect(messageOf(() => parseTeamFile(text, 'team.yaml'))).toContain(expected);
    // Nothing close: no suggestion.
    expect(messageOf(() => parseTeamFile(`name: t\ntasks: x\nzzzzzzzz: 1\n${agent}`, 'team.yaml'))).not.toContain(
      'did you mean',
    );
  });

  it('lists unknown keys by name only', () => {
    const message = messageOf(() => parseTeamFile(`name: t\ntasks: x\nbudget: ${canary}\n${agent}`, 'team.yaml'));
    expect(message).toMatch(/field \(top level\): unknown key budget;/);
    expect(message).not.toContain(canary);
  });

  it('gives line and column of a YAML error without the line (old main printed the line holding the key)', () => {
    const message = messageOf(() =>
      parseTeamFile(`name: t\ntasks: x\nagents:\n  - id: a\n    apiKeyEnv: "${canary}\n`, 'team.yaml'),
    );
    expect(message).toMatch(/^team\.yaml:\d+: not valid YAML at line \d+, column \d+ \([A-Z_]+\)/);
    expect(message).not.toContain(canary);
    expect(message).not.toContain('apiKeyEnv');
  });

  it('sends a provider key only to its official host and any other variable only when the command line names it', () => {
    const team = (name: string, baseURL = '') =>
      `name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai\n    model: m\n    apiKeyEnv: ${name}\n${baseURL === '' ? '' : `    baseURL: ${baseURL}\n`}`;
    expect(parseTeamFile(team('OPENAI_API_KEY'), '/t/team.yaml').agents[0]?.apiKeyEnv).toBe('OPENAI_API_KEY');
    // Before: any name ending in _TOKEN or _KEY was sent to any baseURL the file chose.
    for (const name of [
      'HF_TOKEN',
      'MY_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'NPM_TOKEN',
      'REPUTE_SERVE_TOKEN',
    ])
      expect(() => parseTeamFile(team(name), '/t/team.yaml'), name).toThrow(
        new RegExp(`field agents\\.0\\.apiKeyEnv: ${name} .*--allow-env ${name}`),
      );
    expect(() => parseTeamFile(team('OPENAI_API_KEY', 'https://x.example/v1'), '/t/team.yaml')).toThrow(
      /OPENAI_API_KEY would be sent as a bearer token to https:\/\/x\.example, but a team file may send it only to https:\/\/api\.openai\.com/,
    );
    // The provider's default variable is checked too: `openai` with a foreign baseURL and no apiKeyEnv.
    expect(() =>
      parseTeamFile(
        'name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai\n    model: m\n    baseURL: https://x.example/v1\n',
        '/t/team.yaml',
      ),
    ).toThrow(/field agents\.0\.provider: OPENAI_API_KEY would be sent/);
    expect(
      parseTeamFile(team('GITHUB_TOKEN', 'https://x.example/v1'), '/t/team.yaml', { allowEnv: ['GITHUB_TOKEN'] })
        .agents[0]?.apiKeyEnv,
    ).toBe('GITHUB_TOKEN');
  });

  it('keeps tasks: and store: inside the team file folder unless given on the command line (old main read /etc/passwd)', () => {
    const dir = temporaryDirectory('repute-trust-');
    mkdirSync(join(dir, 'team'));
    writeFileSync(join(dir, 'outside.jsonl'), '');
    symlinkSync(join(dir, 'outside.jsonl'), join(dir, 'team', 'link.jsonl'));
    const file = join(dir, 'team', 'team.yaml');
    const write = (tasks: string, store = 'repute.db') =>
      writeFileSync(file, `name: t\ntasks: ${tasks}\nstore: ${store}\n${agent}`);
    for (const tasks of ['/etc/passwd', '../outside.jsonl', 'link.jsonl']) {
      write(tasks);
      expect(() => readTeamFile(file), tasks).toThrow(
        /field tasks: the path leaves the team file's folder .*pass --tasks <path> on the command line/,
      );
    }
    write('tasks.jsonl', '../repute.db');
    expect(() => readTeamFile(file)).toThrow(/field store: the path leaves the team file's folder/);
    write('/etc/passwd', '/tmp/elsewhere.db');
    expect(readTeamFile(file, { tasks: join(dir, 'outside.jsonl'), store: join(dir, 'x.db') })).toMatchObject({
      tasks: join(dir, 'outside.jsonl'),
      store: join(dir, 'x.db'),
    });
    write('sub/tasks.jsonl', 'data/repute.db');
    expect(readTeamFile(file)).toMatchObject({
      tasks: join(dir, 'team', 'sub', 'tasks.jsonl'),
      store: join(dir, 'team', 'data', 'repute.db'),
    });
  });

  it('refuses a baseURL with credentials or a query string', () => {
    const text = (url: string) =>
      `name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai-compatible\n    model: m\n    baseURL: ${url}\n`;
    for (const url of [`http://user:${canary}@127.0.0.1/v1`, `http://127.0.0.1/v1?key=${canary}`]) {
      const message = messageOf(() => parseTeamFile(text(url), '/t/team.yaml'));
      expect(message).toMatch(/field agents\.0\.baseURL: must not carry credentials or a query string/);
      expect(message).not.toContain(canary);
    }
  });

  it('reads a verifier section: an LLM judge checked like an agent, or an execution verifier', () => {
    const judge = (extra: string) => `name: t\ntasks: x\n${agent}verifier:\n  type: llm-judge\n${extra}`;
    expect(
      parseTeamFile(
        judge('  provider: openai-compatible\n  model: j\n  baseURL: http://127.0.0.1:11434/v1\n'),
        '/t/team.yaml',
      ).verifier,
    ).toEqual({
      type: 'llm-judge',
      id: 'judge',
      provider: 'openai-compatible',
      model: 'j',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    expect(
      parseTeamFile(`name: t\ntasks: x\n${agent}verifier: { type: execution, memoryMb: 256 }\n`, '/t/team.yaml')
        .verifier,
    ).toEqual({
      type: 'execution',
      testsField: 'tests',
      memoryMb: 256,
    });
    // A measured calibration (minirep-vg starts from it), each rate in (0, 1).
    expect(
      parseTeamFile(
        `name: t\ntasks: x\nmethods: [minirep-vg]\n${agent}verifier: { type: execution, calibration: { sensitivity: 0.9, specificity: 0.7 } }\n`,
        '/t/team.yaml',
      ).verifier,
    ).toEqual({ type: 'execution', testsField: 'tests', calibration: { sensitivity: 0.9, specificity: 0.7 } });
    expect(() =>
      parseTeamFile(
        `name: t\ntasks: x\n${agent}verifier: { type: execution, calibration: { sensitivity: 1, specificity: 0.7 } }\n`,
        '/t/team.yaml',
      ),
    ).toThrow(/field verifier\.calibration\.sensitivity/);
    // The agents' rules hold for the judge: baseURL for openai-compatible, the key policy, its own id.
    expect(() => parseTeamFile(judge('  provider: openai-compatible\n  model: j\n'), '/t/team.yaml')).toThrow(
      /field verifier\.baseURL: required for provider openai-compatible/,
    );
    expect(() =>
      parseTeamFile(
        judge('  provider: openai\n  model: j\n  apiKeyEnv: GITHUB_TOKEN\n  baseURL: https://x.example/v1\n'),
        '/t/team.yaml',
      ),
    ).toThrow(/field verifier\.apiKeyEnv: GITHUB_TOKEN .*--allow-env GITHUB_TOKEN/);
    expect(() =>
      parseTeamFile(
        judge('  id: a\n  provider: openai-compatible\n  model: j\n  baseURL: http://h/v1\n'),
        '/t/team.yaml',
      ),
    ).toThrow(/field verifier\.id: the same id as agents\.0\.id/);
    expect(() => parseTeamFile(judge('  provider: openai\n  model: j\n  modle: x\n'), '/t/team.yaml')).toThrow(
      /field verifier: unknown key modle \(did you mean model\?\)/,
    );
    expect(() =>
      parseTeamFile(
        `name: t\ntasks: x\nprotocol: { type: drf }\n${agent}verifier: { type: execution }\n`,
        '/t/team.yaml',
      ),
    ).toThrow(/field verifier: protocol drf does not use a verifier; .*use protocol type debate/);
    expect(() =>
      parseTeamFile(`name: t\ntasks: x\nmethods: [majority, verifier-majority]\n${agent}`, '/t/team.yaml'),
    ).toThrow(/field methods\.1: verifier-majority needs a verifier; add a verifier section/);
    expect(
      parseTeamFile(
        `name: t\ntasks: x\nmethods: [verifier-majority]\n${agent}verifier: { type: execution }\n`,
        '/t/team.yaml',
      ).methods,
    ).toEqual(['verifier-majority']);
  });

  it('reads the verifier examples of docs/agents.md', () => {
    const examples = new URL('../../../examples/', import.meta.url).pathname;
    expect(readTeamFile(join(examples, 'team-judge.yaml')).verifier).toMatchObject({ type: 'llm-judge', id: 'judge' });
    expect(readTeamFile(join(examples, 'team-exec.yaml')).verifier).toMatchObject({
      type: 'execution',
      testsField: 'tests',
    });
  });
});
