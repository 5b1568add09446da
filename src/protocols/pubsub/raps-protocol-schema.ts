// The RAPS protocol's settings, declared once: each field's schema is written here one time and
// assembled into the schema of a team file's `protocol: { type: raps }` block and into the settings
// of `runRapsSession` (its `protocol` option), whose type and known keys are derived from it. The
// two differ only in what is not a RAPS setting of the session: `type`, `transport` and `natsUrl`
// belong to the team file (how `repute run` reaches the agents), and `recovery` (ours, not RAPS) is
// a session setting the team file does not offer. Defaults are `runRaps`'s and the Beta model's
// (one source each), except `replyTimeoutMs`'s, a live team's. Key order is each object's, as the error
// messages list them.
import { z } from 'zod';
import { betaDefaults } from '../../reputation/beta.js';
import { rapsDefaults } from './_raps-settings.js';

/** `replyTimeoutMs` of a live team (a team file's RAPS block, `runRapsSession`), in ms. */
export const liveReplyTimeoutMs = 120_000;

/** Routing and rounds. */
const roundFields = {
  /** Recipients per publication. @default 3 */
  topK: z.number().int().min(1).default(rapsDefaults.topK),
  /** Trust threshold τ of the Beta watchdog, in (0, 1). @default 0.4 */
  tau: z.number().gt(0).lt(1).default(betaDefaults.tau),
  /** Rounds per task. @default 4 */
  maxRounds: z.number().int().min(1).max(50).default(rapsDefaults.maxRounds),
  /** Fraction of publishers saying DONE that ends a task, in (0, 1]. @default 0.6 */
  doneQuorum: z.number().gt(0).max(1).default(rapsDefaults.doneQuorum),
};

/** The broker and the Beta watchdog. */
const watchdogFields = {
  /** Minimum cosine similarity for routing, in [-1, 1]. @default 0.05 */
  floor: z.number().min(-1).max(1).default(rapsDefaults.floor),
  /** Trust policy at the broker. @default 'filter' */
  trustPolicy: z.enum(['filter', 'down-rank']).default(rapsDefaults.trustPolicy),
  /** Beta watchdog: forgetting factor λ in (0, 1]. @default 0.9 */
  lambda: z.number().gt(0).max(1).default(betaDefaults.lambda),
  /** Witness deviation bound δ > 0. @default 1.5 */
  delta: z.number().gt(0).default(betaDefaults.delta),
  /** Weight ω of accepted witness reports, in [0, 1]. @default 0.3 */
  omega: z.number().min(0).max(1).default(betaDefaults.omega),
};

/** Witnesses, refinement, subscriptions and the reply timeout. */
const agentFields = {
  /** Second-hand witness checks. @default true */
  witness: z.boolean().default(rapsDefaults.witness),
  /** Reactive subscription refinement through each agent's model. @default true */
  refine: z.boolean().default(rapsDefaults.refine),
  /** Initial subscription text per agent id; omitted agents get a generic one. @default {} */
  subscriptions: z.record(z.string(), z.string().min(1)).default({}),
  /**
   * Time to wait for all replies of one phase, in ms. A live team's default, longer than a bare
   * `runRaps`'s (60000): live models answer slower than simulated ones. @default 120000
   */
  replyTimeoutMs: z.number().int().min(1).default(liveReplyTimeoutMs),
};

/** The `protocol` block of a RAPS team file; defaults are `runRaps`'s. */
export const rapsTeamConfigSchema = z
  .object({
    type: z.literal('raps'),
    ...roundFields,
    transport: z.enum(['inproc', 'nats']).default('inproc'),
    /** An existing NATS server (only with `transport: nats`); omitted = the run starts its own. */
    natsUrl: z
      .string()
      .regex(/^(nats|tls|wss?):\/\/\S+$/, 'must be a NATS URL such as nats://127.0.0.1:4222')
      .optional(),
    ...watchdogFields,
    ...agentFields,
  })
  .strict();

/** A validated RAPS `protocol` block. */
export type RapsTeamConfig = z.infer<typeof rapsTeamConfigSchema>;

/**
 * The settings of a live RAPS session (`runRapsSession`'s `protocol`): the team file's RAPS
 * settings and `recovery`. `runRapsSession` checks their keys and `runRaps` their values.
 */
const rapsSessionProtocolSchema = z.object({
  ...roundFields,
  ...watchdogFields,
  /**
   * Ours, not RAPS: recovery factor ρ in [0, 1]; beliefs about publishers a receiver kept away age
   * towards the prior, r ← ρ·r, s ← ρ·s (see `runRaps`). 1 = off. @default 1
   */
  recovery: z.number().min(0).max(1).default(rapsDefaults.recovery),
  ...agentFields,
});

/**
 * RAPS settings of a live session (a team file's `protocol: { type: raps, ... }`); each optional,
 * defaults are `runRaps`'s (see the fields of the schema above).
 */
export type RapsSessionProtocol = Readonly<Partial<z.infer<typeof rapsSessionProtocolSchema>>>;

/** The keys of {@link RapsSessionProtocol}, in the schema's order (the known keys `runRapsSession` checks). */
export const rapsSessionProtocolKeys = Object.keys(rapsSessionProtocolSchema.shape) as (keyof RapsSessionProtocol)[];
