import type { AgentId } from './agent-identity.js';

/** A publication in publish/subscribe coordination (RAPS), or any agent-to-agent message. */
export interface Message {
  readonly schemaVersion: 1;
  /** Globally unique id; receivers de-duplicate on it. */
  readonly id: string;
  /** Publishing agent. */
  readonly from: AgentId;
  /** Round in which it was published (0-based). */
  readonly round: number;
  /** Task the message is about, when any. */
  readonly taskId?: string;
  /** Free text: a finding, partial answer or claim. */
  readonly text: string;
  /** Canonical answer key the publisher currently holds, when it has one. */
  readonly answer?: string | null;
  /** The publisher considers itself done. */
  readonly done?: boolean;
}
