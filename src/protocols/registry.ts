// The protocol registry: debate, DRF and RAPS are registered here; a user registers another one
// (`registerProtocol`) before `repute run` reads a team file of its type.
import { closest } from '../core/_closest.js';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import { debateProtocol } from './debate/debate-protocol.js';
import { drfProtocol } from './drf/drf-session-protocol.js';
import type { Protocol, ProtocolConfig } from './protocol.js';
import { rapsProtocol } from './pubsub/raps-protocol.js';

/** A protocol type that no registered protocol has; `suggestion` is the nearest registered type. */
export class UnknownProtocolError extends NotFoundError {
  /** The registered type nearest to the one asked for, if any is near. */
  readonly suggestion: string | undefined;
  /** Every registered type. */
  readonly known: readonly string[];

  constructor({ type, known }: { type: string; known: readonly string[] }) {
    const suggestion = closest(type, known);
    super({
      entity: 'protocol',
      id: type,
      message: `unknown protocol ${JSON.stringify(type)}${suggestion === undefined ? '' : `; did you mean ${JSON.stringify(suggestion)}?`} Registered protocols: ${known.join(', ')} (register another with registerProtocol)`,
    });
    this.suggestion = suggestion;
    this.known = known;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds protocols of every config and record type.
const protocols = new Map<string, Protocol<any, any>>();

/**
 * Registers a protocol under its `type`, so that team files with `protocol: { type }` run with it.
 * A type registered twice is refused (a typo would otherwise replace a built-in protocol).
 *
 * @example
 * registerProtocol(myProtocol); // then: repute run team.yaml with `protocol: { type: my-protocol }`
 */
export function registerProtocol<TConfig extends ProtocolConfig, TRecord>(protocol: Protocol<TConfig, TRecord>): void {
  if (typeof protocol?.type !== 'string' || !/^[a-z][a-z0-9-]*$/.test(protocol.type))
    throw new InvalidArgumentError({
      parameter: 'protocol.type',
      value: protocol?.type,
      message: `a protocol's type must be lower-case letters, digits and '-', starting with a letter, got ${JSON.stringify(protocol?.type)}; e.g. 'round-robin'`,
    });
  if (protocols.has(protocol.type))
    throw new InvalidArgumentError({
      parameter: 'protocol.type',
      value: protocol.type,
      message: `a protocol of type ${JSON.stringify(protocol.type)} is already registered; give yours another type`,
    });
  protocols.set(protocol.type, protocol);
}

/** The protocol a team file without a `protocol` block runs. */
export const defaultProtocolType = 'debate';

/** The registered protocol of `type`; throws {@link UnknownProtocolError} (with the nearest type) when there is none. */
export function getProtocol(type: string): Protocol {
  const protocol = protocols.get(type);
  if (protocol === undefined) throw new UnknownProtocolError({ type, known: protocolTypes() });
  return protocol;
}

/** The registered protocol types, built-in ones first, then in registration order. */
export function protocolTypes(): string[] {
  return [...protocols.keys()];
}

registerProtocol(debateProtocol);
registerProtocol(drfProtocol);
registerProtocol(rapsProtocol);
