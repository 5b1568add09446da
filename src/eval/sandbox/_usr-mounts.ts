// The parts of the host's /usr that the sandbox shows: what the interpreter and prlimit need to
// start and to import the standard library and installed packages, not the rest of /usr (other
// programs, headers, documentation, /usr/local/bin). The interpreter says where its trees are;
// the dynamic loader comes from each binary's ELF header.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Asks the interpreter (run with -I, outside the sandbox) for its trees: stdlib, lib-dynload, site-packages, library directory. */
const QUERY = `import json, os, site, sys, sysconfig
paths = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
paths.update(site.getsitepackages())
paths.add(os.path.realpath(sys.executable))
for name in ("LIBDIR", "LIBPL"):
    paths.add(sysconfig.get_config_var(name) or "")
if sysconfig.get_config_var("MULTIARCH"):
    paths.add("/usr/lib/" + sysconfig.get_config_var("MULTIARCH"))
print(json.dumps(sorted(path for path in paths if path)))
`;

/** Shared by every program whatever the interpreter: locale data for LANG=C.UTF-8 and the time-zone database of `zoneinfo`. */
const SHARED = ['/usr/lib/locale', '/usr/share/zoneinfo'];

/**
 * The paths under /usr to bind read-only (sorted, none inside another), or why they cannot be
 * found: the interpreter did not answer, or it or prlimit is not under /usr.
 */
export function usrMounts(python: string, prlimit: string): { paths: string[] } | { reason: string } {
  for (const [name, binary] of [
    ['python', python],
    ['prlimit', prlimit],
  ] as const) {
    if (!isUnderUsr(binary) || !isUnderUsr(realpathSync(binary)))
      return {
        reason: `tools.${name} ${binary} is not under /usr, the only tree the sandbox shows parts of; pass an install under /usr`,
      };
  }
  const query = spawnSync(python, ['-I', '-c', QUERY], {
    timeout: 10_000,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
  });
  let trees: unknown;
  try {
    trees = JSON.parse(query.stdout ?? '');
  } catch {
    trees = undefined;
  }
  if (!Array.isArray(trees) || !trees.every((tree) => typeof tree === 'string'))
    return {
      reason: `${python} -I did not say where its standard library is (${(query.stderr || query.error?.message || `exit ${query.status}`).trim().slice(0, 300)}); tools.python must be a CPython 3 interpreter`,
    };
  const wanted = [...trees, ...SHARED];
  for (const binary of [python, prlimit]) {
    wanted.push(binary);
    const loader = elfInterpreter(realpathSync(binary));
    // Merged /usr: /lib64/ld-linux-x86-64.so.2 is /usr/lib64/ld-linux-x86-64.so.2.
    if (loader !== null) wanted.push(loader.startsWith('/usr/') ? loader : `/usr${loader}`);
  }
  const existing = [...new Set(wanted.map((file) => path.resolve(file)))].filter(
    (file) => isUnderUsr(file) && existsSync(file),
  );
  existing.sort();
  // A path inside one already bound comes with it.
  const paths = existing.filter((file) => !existing.some((other) => other !== file && file.startsWith(`${other}/`)));
  return { paths };
}

function isUnderUsr(file: string): boolean {
  return path.resolve(file).startsWith('/usr/');
}

/** The PT_INTERP path (the dynamic loader) of a 64-bit little-endian ELF file, or `null` (static, or not such a file). */
export function elfInterpreter(file: string): string | null {
  const header = Buffer.alloc(65_536);
  const descriptor = openSync(file, 'r');
  let size: number;
  try {
    size = readSync(descriptor, header, 0, header.length, 0);
  } finally {
    closeSync(descriptor);
  }
  // \x7fELF, ELFCLASS64 (2), ELFDATA2LSB (1).
  if (size < 64 || header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return null;
  const tableOffset = Number(header.readBigUInt64LE(32));
  const entrySize = header.readUInt16LE(54);
  const entries = header.readUInt16LE(56);
  for (let index = 0; index < entries; index += 1) {
    const entry = tableOffset + index * entrySize;
    if (entry + 40 > size) return null;
    // PT_INTERP = 3: p_offset at +8, p_filesz at +32.
    if (header.readUInt32LE(entry) !== 3) continue;
    const offset = Number(header.readBigUInt64LE(entry + 8));
    const length = Number(header.readBigUInt64LE(entry + 32));
    if (offset + length > size || length === 0) return null;
    return header.toString('latin1', offset, offset + length - 1);
  }
  return null;
}
