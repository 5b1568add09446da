import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import { parseTeamFile } from './_team-file.js';

const agent = 'agents:\n  - id: a\n    provider: openai-compatible\n    model: m\n    baseURL: http://127.0.0.1:11434/v1\n';

describe('parseTeamFile', () => {
  it('applies defaults and resolves paths against the file', () => {
    const team = parseTeamFile(`name: t\ntasks: tasks.jsonl\n${agent}`, '/teams/team.yaml');
    expect(team).toMatchObject({ name: 't', tasks: '/teams/tasks.jsonl', store: '/teams/repute.db', cache: 'record', reputation: 'continue', seed: 2027, methods: ['majority', 'minirep'], protocol: { type: 'debate', rounds: 1 } });
  });

  it('names the file, field and value of bad input', () => {
    const cases: Array<[string, RegExp]> = [
      [`name: t\ntasks: x\nmethods: [majority, vote]\n${agent}`, /team\.yaml: field methods\.1: .*\(got "vote"\)/],
      [`name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai-compatible\n    model: m\n`, /field agents\.0\.baseURL: required for provider openai-compatible/],
      [`name: t\ntasks: x\nagents:\n  - id: a\n    provider: openai\n    model: m\n    apiKeyEnv: sk-live-123\n`, /field agents\.0\.apiKeyEnv: must be the NAME of an environment variable/],
      [`name: t\ntasks: x\n${agent}  - id: a\n    provider: anthropic\n    model: c\n`, /duplicate agent id "a"/],
      [`name: t\ntasks: x\nprotocol: { type: debate, rounds: -1 }\n${agent}`, /field protocol\.rounds/],
      ['name: [unclosed', /team\.yaml(:\d+)?: not valid YAML/],
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
});
