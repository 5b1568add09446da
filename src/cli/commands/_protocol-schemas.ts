// Team-file schemas of the DRF and RAPS protocols (`protocol: { type: drf | raps, ... }`), with the
// same defaults as the library functions they configure (src/protocols/drf, src/protocols/pubsub).
import { z } from 'zod';
import { DataFormatError } from '../../core/errors.js';

/** Aggregators a DRF or RAPS team file may list under `methods`, compared on the protocol's own proposals. */
export const compareMethodNames = ['plurality', 'weighted-plurality'] as const;

/** DRF (arXiv 2509.05764) in a team file; defaults are `runDrf`'s and `createUcbSelector`'s. */
export const drfProtocolSchema = z
  .object({
    type: z.literal('drf'),
    /** Team size per task; omitted = min(3, agents). */
    k: z.number().int().min(1).optional(),
    /** Eqs. 8 and 9 as the review corrects them, or as printed (Eq. 2 is a reported accuracy; it never changes ratings). */
    variant: z.enum(['corrected', 'printed']).default('corrected'),
    /** δ of Eq. 9 (weight on reputation against cost) and of Eq. 7 (increment). */
    delta: z.number().gt(0).max(1).default(0.7),
    /** Agents whose reputation score is below it are filtered out. */
    threshold: z.number().min(0).max(1).default(0.3),
    /** Scale c of the UCB1 exploration bonus. */
    exploration: z.number().min(0).default(1),
    /** Fewest agents kept eligible; omitted = k. */
    minEligible: z.number().int().min(1).optional(),
    defence: z.enum(['none', 'rater-credibility']).default('none'),
    credibilityFloor: z.number().min(0).max(1).default(0.01),
    /** DRF reputation iteration (Eqs. 7–8): threshold w0, Eq. 8 decay β, starting reputation. */
    w0: z.number().gt(0).max(1).default(0.5),
    beta: z.number().gt(0).max(1).default(0.2),
    initialReputation: z.number().min(0).max(1).default(0.5),
    /** Tokens per call assumed for an agent's expected cost before anyone in the team has made a call. */
    priorTokens: z
      .object({ input: z.number().int().min(0).default(500), output: z.number().int().min(0).default(200) })
      .strict()
      .default({ input: 500, output: 200 }),
  })
  .strict();

/** RAPS (arXiv 2602.08009) in a team file; defaults are `runRaps`'s. */
export const rapsProtocolSchema = z
  .object({
    type: z.literal('raps'),
    /** Recipients per publication. */
    topK: z.number().int().min(1).default(3),
    /** Trust threshold τ of the Beta watchdog. */
    tau: z.number().gt(0).lt(1).default(0.4),
    maxRounds: z.number().int().min(1).max(50).default(4),
    doneQuorum: z.number().gt(0).max(1).default(0.6),
    transport: z.enum(['inproc', 'nats']).default('inproc'),
    /** An existing NATS server (only with `transport: nats`); omitted = the run starts its own. */
    natsUrl: z
      .string()
      .regex(/^(nats|tls|wss?):\/\/\S+$/, 'must be a NATS URL such as nats://127.0.0.1:4222')
      .optional(),
    /** Minimum cosine similarity for routing, in [-1, 1]. */
    floor: z.number().min(-1).max(1).default(0.05),
    trustPolicy: z.enum(['filter', 'down-rank']).default('filter'),
    /** Beta watchdog: forgetting λ, witness deviation bound δ, witness weight ω. */
    lambda: z.number().gt(0).max(1).default(0.9),
    delta: z.number().gt(0).default(1.5),
    omega: z.number().min(0).max(1).default(0.3),
    witness: z.boolean().default(true),
    refine: z.boolean().default(true),
    /** Initial subscription text per agent id; omitted agents get a generic one. */
    subscriptions: z.record(z.string(), z.string().min(1)).default({}),
    /** Time to wait for all replies of one phase, in ms. */
    replyTimeoutMs: z.number().int().min(1).default(120_000),
  })
  .strict();

/** A validated `protocol` block. */
export type ProtocolConfig =
  | { readonly type: 'debate'; readonly rounds: number }
  | z.infer<typeof drfProtocolSchema>
  | z.infer<typeof rapsProtocolSchema>;

/** Cross-field checks of a protocol block against the team (k within the pool, known subscription ids, natsUrl only with nats). */
export function validateProtocolAgainstTeam(protocol: ProtocolConfig, agentIds: readonly string[], file: string): void {
  if (protocol.type === 'drf') {
    if (protocol.k !== undefined && protocol.k > agentIds.length) {
      throw new DataFormatError({
        file,
        message: `field protocol.k: the team size exceeds the ${agentIds.length} agents listed; use k <= ${agentIds.length}`,
      });
    }
    if (protocol.minEligible !== undefined && protocol.minEligible > agentIds.length) {
      throw new DataFormatError({
        file,
        message: `field protocol.minEligible: exceeds the ${agentIds.length} agents listed; use 1 (strict filter) up to ${agentIds.length}`,
      });
    }
  }
  if (protocol.type === 'raps') {
    if (protocol.topK > agentIds.length - 1 && agentIds.length > 1) {
      throw new DataFormatError({
        file,
        message: `field protocol.topK: more recipients per publication than the ${agentIds.length - 1} other agents; use topK <= ${agentIds.length - 1}`,
      });
    }
    if (protocol.natsUrl !== undefined && protocol.transport !== 'nats') {
      throw new DataFormatError({
        file,
        message: `field protocol.natsUrl: given with transport ${protocol.transport}; set transport: nats or drop natsUrl`,
      });
    }
    for (const agentId of Object.keys(protocol.subscriptions)) {
      if (!agentIds.includes(agentId))
        throw new DataFormatError({
          file,
          message: `field protocol.subscriptions.${agentId}: no agent has that id; use one of ${agentIds.join(', ')}`,
        });
    }
  }
}
