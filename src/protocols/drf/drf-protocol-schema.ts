// The DRF protocol's settings, declared once: the schema of a team file's `protocol: { type: drf }`
// block, from which the settings type of `runDrfSession` and its known keys are derived.
import { z } from 'zod';
import { drfProtocolDefaults } from './run-drf.js';

/** The `protocol` block of a DRF team file; defaults are `runDrf`'s and `createUcbSelector`'s. */
export const drfTeamConfigSchema = z
  .object({
    type: z.literal('drf'),
    /** Team size per task; omitted = the team file's `k`, else min(3, agents). */
    k: z.number().int().min(1).optional(),
    /** Eqs. 8 and 9 as the review corrects them, or as printed (Eq. 2 is a reported accuracy; it never changes ratings). */
    variant: z.enum(['corrected', 'printed']).default('corrected'),
    /** δ of Eq. 9 (weight on reputation against cost) and of Eq. 7 (increment). */
    delta: z.number().gt(0).max(1).default(0.7),
    /** Agents whose reputation score is below it are filtered out. */
    threshold: z.number().min(0).max(1).default(drfProtocolDefaults.threshold),
    /** Scale c of the UCB1 exploration bonus. */
    exploration: z.number().min(0).default(1),
    /** Fewest agents kept eligible; omitted = k. */
    minEligible: z.number().int().min(1).optional(),
    defence: z.enum(['none', 'rater-credibility']).default(drfProtocolDefaults.defence),
    credibilityFloor: z.number().min(0).max(1).default(drfProtocolDefaults.credibilityFloor),
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

/** A validated DRF `protocol` block. */
export type DrfTeamConfig = z.infer<typeof drfTeamConfigSchema>;

/**
 * The DRF protocol's settings in a live session (`runDrfSession`'s `protocol`): the fields of a team
 * file's DRF block (without `type`), each optional; an omitted field takes the default the schema
 * gives it.
 */
export type DrfProtocolSettings = Readonly<Partial<Omit<DrfTeamConfig, 'type'>>>;

/** The keys of {@link DrfProtocolSettings}, in the schema's order (the known keys `runDrfSession` checks). */
export const drfProtocolSettingKeys: readonly (keyof DrfProtocolSettings)[] = Object.keys(
  drfTeamConfigSchema.shape,
).filter((key): key is keyof DrfProtocolSettings => key !== 'type');
