import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import { debateProtocol } from './debate/debate-protocol.js';
import { getProtocol, protocolTypes, registerProtocol, UnknownProtocolError } from './registry.js';

describe('protocol registry', () => {
  it('holds debate, DRF and RAPS under their team-file types', () => {
    expect(protocolTypes().slice(0, 3)).toEqual(['debate', 'drf', 'raps']);
    for (const type of ['debate', 'drf', 'raps']) expect(getProtocol(type).type).toBe(type);
  });

  it('names an unknown type and the nearest registered one in a typed error', () => {
    let caught: unknown;
    try {
      getProtocol('rap');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnknownProtocolError);
    expect(caught).toBeInstanceOf(NotFoundError);
    const error = caught as UnknownProtocolError;
    // 'rap' is a prefix of 'raps' (distance 1) and 2 edits from 'drf': raps is nearest.
    expect(error.id).toBe('rap');
    expect(error.suggestion).toBe('raps');
    expect(error.message).toMatch(/unknown protocol "rap"; did you mean "raps"\?/);
    // Nothing within 2 edits: no suggestion, the list only.
    expect(() => getProtocol('gossip')).toThrow(/unknown protocol "gossip" Registered protocols: debate, drf, raps/);
  });

  it('refuses a second protocol of a registered type and a type a team file cannot name', () => {
    expect(() => registerProtocol(debateProtocol)).toThrow(InvalidArgumentError);
    expect(() => registerProtocol({ ...debateProtocol, type: 'Round Robin' })).toThrow(
      /a protocol's type must be lower-case letters, digits and '-'/,
    );
  });
});
