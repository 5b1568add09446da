// The sandbox's seccomp filter, as the classic BPF program bwrap loads with `--seccomp FD`
// (an array of `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`, little-endian on x64 and
// arm64). It is what makes `memoryMb` bound the whole sandbox: without new processes there is one
// address space, without SysV IPC, memfd files or BPF maps no memory held outside it, and without
// a user namespace of its own no tmpfs without a size limit.
import { InternalError } from '../../core/errors.js';

/** System-call numbers the filter needs, per Node `process.arch`. */
interface ArchitectureSyscalls {
  /** `AUDIT_ARCH_*` value of `seccomp_data.arch`. */
  readonly audit: number;
  readonly clone: number;
  readonly clone3: number;
  /**
   * Refused outright, in this order: process creation other than `clone`, new namespaces; memory
   * that the address-space limit does not count once unmapped (SysV IPC, memfd files, BPF maps);
   * the kernel keyrings; reaching into another process (`ptrace`, `process_vm_readv`,
   * `process_vm_writev`, `pidfd_getfd`).
   */
  readonly refused: readonly number[];
  /** Numbers from here up belong to another ABI on the same architecture (x32 on x64). */
  readonly foreignAbiFrom?: number;
}

const architectures: Readonly<Record<string, ArchitectureSyscalls>> = {
  // arch/x86/entry/syscalls/syscall_64.tbl: shmget 29, clone 56, fork 57, vfork 58, semget 64,
  // msgget 68, ptrace 101, add_key 248, request_key 249, keyctl 250, unshare 272, process_vm_readv
  // 310, process_vm_writev 311, memfd_create 319, bpf 321, clone3 435, pidfd_getfd 438.
  x64: {
    audit: 0xc000003e,
    clone: 56,
    clone3: 435,
    refused: [57, 58, 272, 29, 64, 68, 319, 321, 248, 249, 250, 101, 310, 311, 438],
    foreignAbiFrom: 0x40000000,
  },
  // include/uapi/asm-generic/unistd.h: unshare 97, ptrace 117, msgget 186, semget 190, shmget 194,
  // add_key 217, request_key 218, keyctl 219, clone 220, process_vm_readv 270, process_vm_writev
  // 271, memfd_create 279, bpf 280, clone3 435, pidfd_getfd 438 (no fork or vfork).
  arm64: {
    audit: 0xc00000b7,
    clone: 220,
    clone3: 435,
    refused: [97, 186, 190, 194, 279, 280, 217, 218, 219, 117, 270, 271, 438],
  },
};

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const ENOSYS = 38;
const CLONE_THREAD = 0x00010000;
const CLONE_NEWUSER = 0x10000000;
// Offsets in struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6].
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

type Label = 'allow' | 'deny' | 'nosys' | 'kill' | 'clone';
type Instruction =
  | { code: number; k: number }
  | { code: number; k: number; ifTrue: Label | 'next'; ifFalse: Label | 'next' }
  | { label: Label };

/** Whether {@link syscallFilter} has the system-call numbers of this architecture. */
export function syscallFilterSupports(architecture: string): boolean {
  return Object.hasOwn(architectures, architecture);
}

/**
 * Which of the two filters: `'sandbox'`, loaded by bwrap for the whole sandbox, still lets the
 * driver fork its one child (`clone` without `CLONE_NEWUSER`); `'program'`, which the driver stacks
 * on it in both of its processes right after that fork (before any test or program code runs),
 * lets them start threads only.
 */
export type SyscallFilterStage = 'sandbox' | 'program';

/**
 * The filter for `architecture` (a Node `process.arch`) at `stage`: threads may be created (`clone`
 * with `CLONE_THREAD`), processes only at stage `'sandbox'` (a `clone` without it; `fork` and
 * `vfork` never: EPERM; `clone3`: ENOSYS, so the C library falls back to `clone`), and never
 * namespaces (`unshare`, `CLONE_NEWUSER`), memory outside the address space (`shmget`, `semget`,
 * `msgget`, `memfd_create`, `bpf`), keys (`add_key`, `request_key`, `keyctl`: the keyrings outlive
 * the run, and `request_key` can start a helper on the host), nor another process's memory or
 * descriptors (`ptrace`, `process_vm_readv`, `process_vm_writev`, `pidfd_getfd`), all EPERM. A
 * system call of another ABI (32-bit x86, x32) kills the process.
 */
export function syscallFilter(architecture: string, stage: SyscallFilterStage): Buffer {
  const syscalls = architectures[architecture];
  if (syscalls === undefined)
    throw new InternalError(
      `no system-call filter for architecture ${architecture}; checkSandbox should have refused it (this is a bug in Repute)`,
    );
  const program: Instruction[] = [
    { code: BPF_LD_W_ABS, k: OFFSET_ARCH },
    { code: BPF_JMP_JEQ_K, k: syscalls.audit, ifTrue: 'next', ifFalse: 'kill' },
    { code: BPF_LD_W_ABS, k: OFFSET_NR },
    ...(syscalls.foreignAbiFrom === undefined
      ? []
      : [{ code: BPF_JMP_JGE_K, k: syscalls.foreignAbiFrom, ifTrue: 'deny', ifFalse: 'next' } as const]),
    ...syscalls.refused.map((number) => ({ code: BPF_JMP_JEQ_K, k: number, ifTrue: 'deny', ifFalse: 'next' }) as const),
    { code: BPF_JMP_JEQ_K, k: syscalls.clone3, ifTrue: 'nosys', ifFalse: 'next' },
    { code: BPF_JMP_JEQ_K, k: syscalls.clone, ifTrue: 'clone', ifFalse: 'allow' },
    { label: 'clone' },
    // The flags are clone's first argument on both architectures; they fit in its low 32 bits.
    { code: BPF_LD_W_ABS, k: OFFSET_ARG0_LOW },
    { code: BPF_JMP_JSET_K, k: CLONE_NEWUSER, ifTrue: 'deny', ifFalse: 'next' },
    { code: BPF_JMP_JSET_K, k: CLONE_THREAD, ifTrue: 'allow', ifFalse: stage === 'sandbox' ? 'allow' : 'deny' },
    { label: 'allow' },
    { code: BPF_RET_K, k: SECCOMP_RET_ALLOW },
    { label: 'deny' },
    { code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EPERM },
    { label: 'nosys' },
    { code: BPF_RET_K, k: SECCOMP_RET_ERRNO | ENOSYS },
    { label: 'kill' },
    { code: BPF_RET_K, k: SECCOMP_RET_KILL_PROCESS },
  ];
  return assemble(program);
}

/** Resolves labels to BPF jump offsets (counted from the next instruction) and encodes the program. */
function assemble(program: readonly Instruction[]): Buffer {
  const positions = new Map<Label, number>();
  const instructions: Exclude<Instruction, { label: Label }>[] = [];
  for (const entry of program) {
    if ('label' in entry) positions.set(entry.label, instructions.length);
    else instructions.push(entry);
  }
  const output = Buffer.alloc(instructions.length * 8);
  instructions.forEach((instruction, index) => {
    const offset = (target: Label | 'next'): number => {
      if (target === 'next') return 0;
      const jump = (positions.get(target) as number) - index - 1;
      if (jump < 0 || jump > 255) throw new InternalError(`BPF jump to ${target} out of range: ${jump}`);
      return jump;
    };
    output.writeUInt16LE(instruction.code, index * 8);
    output.writeUInt8('ifTrue' in instruction ? offset(instruction.ifTrue) : 0, index * 8 + 2);
    output.writeUInt8('ifFalse' in instruction ? offset(instruction.ifFalse) : 0, index * 8 + 3);
    output.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return output;
}
