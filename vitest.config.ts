import { defineConfig } from 'vitest/config';

// Core suite: runs on a fresh clone from fixtures the tests generate themselves.
export default defineConfig({
  test: {
    // Removes the temporary directories a test file made (src/testing/_test-temporary-directory.ts).
    setupFiles: ['src/testing/_test-setup.ts'],
    include: ['src/**/*.test.ts', 'test/core/**/*.test.ts'],
    // The default output, then one closing line when sandbox tests were skipped (and why).
    reporters: ['default', './src/testing/_sandbox-skip-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
