// Making a file or folder unwritable in tests, also as root (whom chmod does not stop): the
// immutable flag (`chattr +i`) where the file system has it.
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Makes a file or folder unwritable; false when this machine cannot (the test should skip then). */
export function makeReadOnly(path: string, isFolder = false): boolean {
  chmodSync(path, isFolder ? 0o555 : 0o444);
  if (process.getuid?.() === 0) {
    try {
      execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
    } catch {
      return false;
    }
  }
  try {
    if (isFolder) {
      const probe = join(path, '.probe');
      closeSync(openSync(probe, 'w'));
      unlinkSync(probe);
    } else closeSync(openSync(path, 'r+'));
    return false;
  } catch {
    return true;
  }
}

/** Undoes {@link makeReadOnly}. */
export function makeWritable(path: string, isFolder = false): void {
  if (process.getuid?.() === 0) execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
  chmodSync(path, isFolder ? 0o755 : 0o644);
}
