import { describe, expect, it } from 'vitest';
import { syscallFilter, syscallFilterSupports } from './_syscall-filter.js';

/** The program as [code, jt, jf, k] rows (struct sock_filter, 8 bytes each, little-endian). */
function decode(program: Buffer): number[][] {
  const rows: number[][] = [];
  for (let offset = 0; offset < program.length; offset += 8)
    rows.push([
      program.readUInt16LE(offset),
      program.readUInt8(offset + 2),
      program.readUInt8(offset + 3),
      program.readUInt32LE(offset + 4),
    ]);
  return rows;
}

describe('syscallFilter', () => {
  it('encodes the x64 program with jumps counted from the next instruction', () => {
    // Rows 0..23; a jump of n from row i lands on row i + 1 + n. allow = 20, deny = 21, nosys = 22, kill = 23.
    expect(decode(syscallFilter('x64'))).toEqual([
      [0x20, 0, 0, 4], //  0 load arch
      [0x15, 0, 21, 0xc000003e], //  1 arch == AUDIT_ARCH_X86_64, else kill: 1 + 1 + 21 = 23
      [0x20, 0, 0, 0], //  2 load nr
      [0x35, 17, 0, 0x40000000], //  3 x32 ABI -> deny: 3 + 1 + 17 = 21
      [0x15, 16, 0, 57], //  4 fork -> deny: 4 + 1 + 16 = 21
      [0x15, 15, 0, 58], //  5 vfork
      [0x15, 14, 0, 272], //  6 unshare
      [0x15, 13, 0, 29], //  7 shmget
      [0x15, 12, 0, 64], //  8 semget
      [0x15, 11, 0, 68], //  9 msgget
      [0x15, 10, 0, 319], // 10 memfd_create
      [0x15, 9, 0, 321], // 11 bpf
      [0x15, 8, 0, 248], // 12 add_key
      [0x15, 7, 0, 249], // 13 request_key
      [0x15, 6, 0, 250], // 14 keyctl -> deny: 14 + 1 + 6 = 21
      [0x15, 6, 0, 435], // 15 clone3 -> nosys: 15 + 1 + 6 = 22
      [0x15, 0, 3, 56], // 16 clone -> row 17, else allow: 16 + 1 + 3 = 20
      [0x20, 0, 0, 16], // 17 load the low word of clone's flags
      [0x45, 2, 0, 0x10000000], // 18 CLONE_NEWUSER -> deny: 18 + 1 + 2 = 21
      [0x45, 0, 1, 0x00010000], // 19 CLONE_THREAD -> allow (20), else deny (21)
      [0x06, 0, 0, 0x7fff0000], // 20 allow
      [0x06, 0, 0, 0x00050001], // 21 errno EPERM
      [0x06, 0, 0, 0x00050026], // 22 errno ENOSYS (38)
      [0x06, 0, 0, 0x80000000], // 23 kill the process
    ]);
  });

  it('knows x64 and arm64 only', () => {
    expect(syscallFilterSupports('x64')).toBe(true);
    expect(syscallFilterSupports('arm64')).toBe(true);
    expect(syscallFilterSupports('ia32')).toBe(false);
    expect(syscallFilterSupports('toString')).toBe(false);
    // arm64 has no fork, vfork or x32: arch load, arch check and nr load (3), 9 refusals, clone3 and clone (2),
    // the flag load and its two checks (3), 4 returns.
    expect(decode(syscallFilter('arm64'))).toHaveLength(3 + 9 + 2 + 3 + 4);
    expect(() => syscallFilter('ia32')).toThrow(/no system-call filter for architecture ia32/);
  });
});
