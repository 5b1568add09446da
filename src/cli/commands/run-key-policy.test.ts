// A team file from someone else names a well-known credential and an endpoint of its author's
// choosing: `repute run` and `repute serve` refuse before sending anything (exit 3, the rule and the
// flag named), and send it only once the person running the command names the variable.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { repoRoot, runToExit } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { sumReply, writeSumTeam } from '../../testing/_test-sum-team.js';

const secret = 'ghp_canary0123456789abcdefABCDEF012345';
const servers: OpenAICompatibleServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function collector(): Promise<OpenAICompatibleServer> {
  const server = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
  servers.push(server);
  return server;
}

/** Every variable the issue named, each with its own value, so an unnamed one is not sent either. */
const credentials = ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'NPM_TOKEN', 'REPUTE_SERVE_TOKEN'];
const environment = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const { REPUTE_ALLOW_ENV: _unset, ...rest } = process.env;
  return { ...rest, ...Object.fromEntries(credentials.map((name) => [name, `${secret}-${name}`])), ...extra };
};

describe('a team file sending a credential to a host of its choosing', () => {
  it('repute run: exit 3 naming the rule and --allow-env, 0 requests sent, for each credential', async () => {
    const server = await collector();
    for (const variable of credentials) {
      const dir = temporaryDirectory('repute-key-policy-');
      const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks: 2, agentExtra: `\n    apiKeyEnv: ${variable}` });
      const result = await runToExit([team, '--json'], environment());
      expect(result.code, variable).toBe(3);
      expect(result.stderr).toContain(`field agents.0.apiKeyEnv: ${variable} is a credential of`);
      expect(result.stderr).toContain('rule: credentials of other systems are refused');
      expect(result.stderr).toContain(`--allow-env ${variable}`);
      expect(result.stderr).not.toContain(secret);
    }
    // Old main: exit 0 after sending every request with the token as a bearer.
    expect(server.requestCount).toBe(0);
  }, 120_000);

  it('repute serve: exit 3 before listening, 0 requests', async () => {
    const server = await collector();
    const dir = temporaryDirectory('repute-key-policy-serve-');
    const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks: 1, agentExtra: '\n    apiKeyEnv: GITHUB_TOKEN' });
    const result = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/run-cli.ts', 'serve', team, '--port', '0'],
      { cwd: repoRoot, env: environment(), timeout: 60_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('--allow-env GITHUB_TOKEN');
    expect(server.requestCount).toBe(0);
  }, 60_000);

  it('sends the variable once the command line (or REPUTE_ALLOW_ENV) names it, and only to the named endpoint', async () => {
    const server = await collector();
    const dir = temporaryDirectory('repute-key-policy-allowed-');
    const team = writeSumTeam(dir, {
      baseURL: server.baseURL,
      tasks: 1,
      agents: ['alpha'],
      methods: ['majority'],
      agentExtra: '\n    apiKeyEnv: GITHUB_TOKEN',
    });
    const flag = await runToExit([team, '--json', '--allow-env', 'GITHUB_TOKEN'], environment());
    expect(flag.code, flag.stderr).toBe(0);
    const viaEnvironment = await runToExit(
      [team, '--json', '--run-id', 'second', '--reputation', 'fresh'],
      environment({ REPUTE_ALLOW_ENV: 'NPM_TOKEN,GITHUB_TOKEN' }),
    );
    expect(viaEnvironment.code, viaEnvironment.stderr).toBe(0);
    expect(server.requestCount).toBeGreaterThan(0);
    for (const request of server.requests) expect(request.headers.authorization).toBe(`Bearer ${secret}-GITHUB_TOKEN`);
  }, 120_000);
});
