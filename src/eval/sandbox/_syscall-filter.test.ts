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
    // Rows 0..27; a jump of n from row i lands on row i + 1 + n. allow = 24, deny = 25, nosys = 26, kill = 27.
    expect(decode(syscallFilter('x64', 'program'))).toEqual([
      [0x20, 0, 0, 4], //  0 load arch
      [0x15, 0, 25, 0xc000003e], //  1 arch == AUDIT_ARCH_X86_64, else kill: 1 + 1 + 25 = 27
      [0x20, 0, 0, 0], //  2 load nr
      [0x35, 21, 0, 0x40000000], //  3 x32 ABI -> deny: 3 + 1 + 21 = 25
      [0x15, 20, 0, 57], //  4 fork -> deny: 4 + 1 + 20 = 25
      [0x15, 19, 0, 58], //  5 vfork
      [0x15, 18, 0, 272], //  6 unshare
      [0x15, 17, 0, 29], //  7 shmget
      [0x15, 16, 0, 64], //  8 semget
      [0x15, 15, 0, 68], //  9 msgget
      [0x15, 14, 0, 319], // 10 memfd_create
      [0x15, 13, 0, 321], // 11 bpf
      [0x15, 12, 0, 248], // 12 add_key
      [0x15, 11, 0, 249], // 13 request_key
      [0x15, 10, 0, 250], // 14 keyctl
      [0x15, 9, 0, 101], // 15 ptrace
      [0x15, 8, 0, 310], // 16 process_vm_readv
      [0x15, 7, 0, 311], // 17 process_vm_writev
      [0x15, 6, 0, 438], // 18 pidfd_getfd -> deny: 18 + 1 + 6 = 25
      [0x15, 6, 0, 435], // 19 clone3 -> nosys: 19 + 1 + 6 = 26
      [0x15, 0, 3, 56], // 20 clone -> row 21, else allow: 20 + 1 + 3 = 24
      [0x20, 0, 0, 16], // 21 load the low word of clone's flags
      [0x45, 2, 0, 0x10000000], // 22 CLONE_NEWUSER -> deny: 22 + 1 + 2 = 25
      [0x45, 0, 1, 0x00010000], // 23 CLONE_THREAD -> allow (24), else deny (25)
      [0x06, 0, 0, 0x7fff0000], // 24 allow
      [0x06, 0, 0, 0x00050001], // 25 errno EPERM
      [0x06, 0, 0, 0x00050026], // 26 errno ENOSYS (38)
      [0x06, 0, 0, 0x80000000], // 27 kill the process
    ]);
  });

  it("lets the driver fork at stage 'sandbox' only: a clone without CLONE_THREAD is allowed there", () => {
    const program = decode(syscallFilter('x64', 'program'));
    const sandbox = decode(syscallFilter('x64', 'sandbox'));
    // Row 23 alone differs: CLONE_THREAD -> allow, else allow (24) instead of deny (25); a user
    // namespace (row 22) and fork/vfork (rows 4, 5) stay refused.
    expect(sandbox[23]).toEqual([0x45, 0, 0, 0x00010000]);
    expect(sandbox.filter((_, index) => index !== 23)).toEqual(program.filter((_, index) => index !== 23));
  });

  it('knows x64 and arm64 only', () => {
    expect(syscallFilterSupports('x64')).toBe(true);
    expect(syscallFilterSupports('arm64')).toBe(true);
    expect(syscallFilterSupports('ia32')).toBe(false);
    expect(syscallFilterSupports('toString')).toBe(false);
    // arm64 has no fork, vfork or x32: arch load, arch check and nr load (3), 13 refusals, clone3 and clone (2),
    // the flag load and its two checks (3), 4 returns.
    expect(decode(syscallFilter('arm64', 'program'))).toHaveLength(3 + 13 + 2 + 3 + 4);
    expect(() => syscallFilter('ia32', 'program')).toThrow(/no system-call filter for architecture ia32/);
  });
});
