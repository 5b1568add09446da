import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedEnvNames, checkKeyDestination, foreignCredentialSystem, officialKeyHosts } from './key-policy.js';

const evil = 'https://collector.example/v1';

describe('checkKeyDestination', () => {
  it('refuses the credentials of other systems on any endpoint, naming the system, the rule and the flag', () => {
    for (const [variable, system] of [
      ['GITHUB_TOKEN', 'GitHub'],
      ['GH_TOKEN', 'GitHub'],
      ['AWS_SECRET_ACCESS_KEY', 'Amazon Web Services'],
      ['AWS_SESSION_TOKEN', 'Amazon Web Services'],
      ['NPM_TOKEN', 'the npm registry'],
      ['GITLAB_TOKEN', 'GitLab'],
      ['GOOGLE_APPLICATION_CREDENTIALS', 'Google Cloud'],
      ['AZURE_CLIENT_SECRET', 'Microsoft Azure'],
      ['DOCKER_AUTH_CONFIG', 'Docker'],
      ['REPUTE_SERVE_TOKEN', "Repute's own server"],
    ] as const) {
      for (const baseURL of [evil, 'http://127.0.0.1:11434/v1', 'https://api.openai.com/v1']) {
        const refusal = checkKeyDestination({ provider: 'openai-compatible', variable, baseURL });
        expect(refusal?.rule, `${variable} → ${baseURL}`).toBe('foreign-credential');
        expect(refusal?.message).toContain(`${variable} is a credential of ${system}`);
        expect(refusal?.message).toContain(`--allow-env ${variable}`);
        expect(refusal?.message).toContain(`REPUTE_ALLOW_ENV=${variable}`);
        expect(refusal?.message).toContain(new URL(baseURL).origin);
      }
    }
  });

  it("sends a provider's own key to its official host over https only", () => {
    expect(checkKeyDestination({ provider: 'openai', variable: 'OPENAI_API_KEY' })).toBeUndefined();
    expect(checkKeyDestination({ provider: 'anthropic', variable: 'ANTHROPIC_API_KEY' })).toBeUndefined();
    expect(
      checkKeyDestination({
        provider: 'openai-compatible',
        variable: 'GROQ_API_KEY',
        baseURL: 'https://api.groq.com/openai/v1',
      }),
    ).toBeUndefined();
    for (const baseURL of [
      evil,
      'http://api.openai.com/v1',
      'https://api.openai.com:8443/v1',
      'https://api.openai.com.evil.example/v1',
    ]) {
      const refusal = checkKeyDestination({ provider: 'openai', variable: 'OPENAI_API_KEY', baseURL });
      expect(refusal?.rule, baseURL).toBe('provider-key-elsewhere');
      expect(refusal?.message).toContain('only to https://api.openai.com');
    }
    // Anthropic's key is not OpenAI's: it never goes to api.openai.com.
    expect(
      checkKeyDestination({ provider: 'openai', variable: 'ANTHROPIC_API_KEY', baseURL: 'https://api.openai.com/v1' })
        ?.rule,
    ).toBe('provider-key-elsewhere');
  });

  it('refuses any other variable unless the command line named it; a named one goes anywhere', () => {
    for (const variable of ['MY_LOCAL_KEY', 'HF_TOKEN', 'HOME', 'REPUTE_CANARY_API_KEY']) {
      expect(checkKeyDestination({ provider: 'openai-compatible', variable, baseURL: evil })?.rule).toBe(
        'unnamed-variable',
      );
      expect(
        checkKeyDestination({ provider: 'openai-compatible', variable, baseURL: evil, allowEnv: [variable] }),
      ).toBeUndefined();
    }
    expect(
      checkKeyDestination({
        provider: 'openai-compatible',
        variable: 'GITHUB_TOKEN',
        baseURL: evil,
        allowEnv: ['GITHUB_TOKEN'],
      }),
    ).toBeUndefined();
    // Allowing one name allows no other.
    expect(
      checkKeyDestination({
        provider: 'openai-compatible',
        variable: 'GH_TOKEN',
        baseURL: evil,
        allowEnv: ['GITHUB_TOKEN'],
      }),
    ).toBeDefined();
  });

  it('allows a variable to a foreign host exactly when it is named (property, 200 runs, seeded)', () => {
    const name = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,20}$/);
    fc.assert(
      fc.property(name, fc.array(name, { maxLength: 4 }), (variable, allowEnv) => {
        const refusal = checkKeyDestination({ provider: 'openai-compatible', variable, baseURL: evil, allowEnv });
        expect(refusal === undefined).toBe(allowEnv.includes(variable));
      }),
      { numRuns: 200, seed: 42 },
    );
  });

  it('matches credential prefixes case-insensitively and lists a provider key as no foreign credential', () => {
    expect(foreignCredentialSystem('aws_access_key_id')).toBe('Amazon Web Services');
    expect(foreignCredentialSystem('DOCKERHUB_TOKEN')).toBe('Docker');
    for (const variable of Object.keys(officialKeyHosts)) expect(foreignCredentialSystem(variable)).toBeUndefined();
  });
});

describe('allowedEnvNames', () => {
  it('joins --allow-env and REPUTE_ALLOW_ENV, dropping blanks and repeats', () => {
    expect(allowedEnvNames(' A_KEY, ,B_TOKEN', { REPUTE_ALLOW_ENV: 'B_TOKEN,C' })).toEqual(['A_KEY', 'B_TOKEN', 'C']);
    expect(allowedEnvNames(undefined, {})).toEqual([]);
  });
});
