// Where an API key may be sent (docs/security.md, "Where a key may go"). A team file names an
// environment variable (`apiKeyEnv`) and an endpoint (`baseURL`); the key is then sent as a bearer
// token to that endpoint. A team file is often someone else's, so it alone decides neither:
// a provider's own key goes to that provider's official host, anything else only when the person
// running the command names the variable (`--allow-env NAME` or `REPUTE_ALLOW_ENV=NAME`).

/** The environment variable listing variables a team file may send anywhere (comma-separated). */
export const ALLOW_ENV_VARIABLE = 'REPUTE_ALLOW_ENV';

/**
 * Each provider key variable and the only hosts it is sent to without `--allow-env` (over https,
 * on the default port). `openai` and `anthropic` read the first two by default.
 */
export const officialKeyHosts: Readonly<Record<string, readonly string[]>> = {
  OPENAI_API_KEY: ['api.openai.com'],
  ANTHROPIC_API_KEY: ['api.anthropic.com'],
  GROQ_API_KEY: ['api.groq.com'],
  MISTRAL_API_KEY: ['api.mistral.ai'],
  DEEPSEEK_API_KEY: ['api.deepseek.com'],
  TOGETHER_API_KEY: ['api.together.xyz'],
  FIREWORKS_API_KEY: ['api.fireworks.ai'],
  OPENROUTER_API_KEY: ['openrouter.ai'],
  XAI_API_KEY: ['api.x.ai'],
};

/** The variable each provider reads its key from when `apiKeyEnv` is not given. */
export const defaultApiKeyEnv: Readonly<Record<string, string | undefined>> = {
  'openai-compatible': undefined,
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** Default API root of the hosted providers (what the AI SDK uses when no `baseURL` is given). */
export const defaultProviderBaseURL: Readonly<Record<string, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
};

/**
 * Credentials of systems other than a model provider, each with the system named in the refusal.
 * A name matches an entry when it equals it, or starts with it when the entry ends in `*`.
 */
export const foreignCredentials: ReadonlyArray<readonly [pattern: string, system: string]> = [
  ['AWS_*', 'Amazon Web Services'],
  ['AZURE_*', 'Microsoft Azure'],
  ['ARM_CLIENT_SECRET', 'Microsoft Azure'],
  ['GOOGLE_APPLICATION_CREDENTIALS', 'Google Cloud'],
  ['GCP_*', 'Google Cloud'],
  ['GOOGLE_CLOUD_*', 'Google Cloud'],
  ['CLOUDSDK_*', 'Google Cloud'],
  ['GITHUB_TOKEN', 'GitHub'],
  ['GH_TOKEN', 'GitHub'],
  ['GH_ENTERPRISE_TOKEN', 'GitHub'],
  ['GITHUB_PAT', 'GitHub'],
  ['GITLAB_TOKEN', 'GitLab'],
  ['CI_JOB_TOKEN', 'GitLab'],
  ['BITBUCKET_*', 'Bitbucket'],
  ['NPM_TOKEN', 'the npm registry'],
  ['NODE_AUTH_TOKEN', 'the npm registry'],
  ['PYPI_*', 'PyPI'],
  ['TWINE_*', 'PyPI'],
  ['CARGO_REGISTRY_TOKEN', 'crates.io'],
  ['DOCKER*', 'Docker'],
  ['REPUTE_SERVE_TOKEN', "Repute's own server"],
  ['VAULT_TOKEN', 'HashiCorp Vault'],
  ['KUBECONFIG', 'Kubernetes'],
  ['SSH_*', 'SSH'],
  ['DATABASE_URL', 'a database'],
  ['PGPASSWORD', 'PostgreSQL'],
  ['SLACK_*', 'Slack'],
  ['STRIPE_*', 'Stripe'],
  ['HEROKU_API_KEY', 'Heroku'],
  ['DIGITALOCEAN_*', 'DigitalOcean'],
  ['CLOUDFLARE_*', 'Cloudflare'],
  ['VERCEL_TOKEN', 'Vercel'],
  ['NETLIFY_AUTH_TOKEN', 'Netlify'],
  ['SENTRY_AUTH_TOKEN', 'Sentry'],
  ['CODECOV_TOKEN', 'Codecov'],
];

/** Which rule refused a key. */
export type KeyPolicyRule = 'foreign-credential' | 'provider-key-elsewhere' | 'unnamed-variable';

/** A refused key destination: the rule and a message naming variable, host, rule and the flag. */
export interface KeyRefusal {
  readonly rule: KeyPolicyRule;
  readonly message: string;
}

/** Options of {@link checkKeyDestination}. */
export interface CheckKeyDestinationOptions {
  /** The agent's provider (`openai-compatible`, `openai`, `anthropic`). */
  readonly provider: string;
  /** The variable whose value would be sent (the team file's `apiKeyEnv`, or the provider's default). */
  readonly variable: string;
  /** The API root the key would go to. @default the provider's public API */
  readonly baseURL?: string | undefined;
  /** Variables the person running the command allowed by name. @default [] */
  readonly allowEnv?: readonly string[];
}

/** The system whose credential `variable` is, when it is one of {@link foreignCredentials}. */
export function foreignCredentialSystem(variable: string): string | undefined {
  const upper = variable.toUpperCase();
  for (const [pattern, system] of foreignCredentials) {
    if (pattern.endsWith('*') ? upper.startsWith(pattern.slice(0, -1)) : upper === pattern) return system;
  }
  return undefined;
}

/**
 * Whether `variable`'s value may be sent to `baseURL`: yes when the command line named it, or it is
 * a provider key going to that provider's official host over https; otherwise the refusal (rule
 * and message, naming only the variable and the endpoint's origin).
 *
 * @example
 * checkKeyDestination({ provider: 'openai-compatible', variable: 'GITHUB_TOKEN', baseURL: 'https://x.example/v1' });
 * // → { rule: 'foreign-credential', message: 'GITHUB_TOKEN is a credential of GitHub, …' }
 */
export function checkKeyDestination(options: CheckKeyDestinationOptions): KeyRefusal | undefined {
  const { variable, allowEnv = [] } = options;
  if (allowEnv.includes(variable)) return undefined;
  const root = options.baseURL ?? defaultProviderBaseURL[options.provider];
  let url: URL | undefined;
  try {
    url = root === undefined ? undefined : new URL(root);
  } catch {
    url = undefined;
  }
  const origin = url?.origin ?? 'an endpoint';
  const official = officialKeyHosts[variable];
  if (
    official !== undefined &&
    url !== undefined &&
    url.protocol === 'https:' &&
    url.port === '' &&
    official.includes(url.hostname)
  )
    return undefined;
  const allow = `pass --allow-env ${variable} (or set ${ALLOW_ENV_VARIABLE}=${variable}) if you mean it`;
  const system = foreignCredentialSystem(variable);
  if (system !== undefined)
    return {
      rule: 'foreign-credential',
      message: `${variable} is a credential of ${system}, not of a model provider, and would be sent as a bearer token to ${origin}; a team file alone may not send it (rule: credentials of other systems are refused, docs/security.md); ${allow}`,
    };
  if (official !== undefined)
    return {
      rule: 'provider-key-elsewhere',
      message: `${variable} would be sent as a bearer token to ${origin}, but a team file may send it only to https://${official.join(', https://')} (rule: a provider's key goes only to its official host, docs/security.md); ${allow}`,
    };
  return {
    rule: 'unnamed-variable',
    message: `${variable} would be sent as a bearer token to ${origin}; a team file alone may not choose which variable is sent where (rule: a variable other than a provider key for its official host must be named by you, docs/security.md); ${allow}`,
  };
}

/**
 * The variable names the person running the command allowed: `--allow-env` (comma-separated)
 * plus those listed in `REPUTE_ALLOW_ENV`; blanks dropped.
 */
export function allowedEnvNames(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const names = [flag ?? '', env[ALLOW_ENV_VARIABLE] ?? '']
    .flatMap((list) => list.split(','))
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  return [...new Set(names)];
}
