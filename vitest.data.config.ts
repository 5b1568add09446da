import { defineConfig } from 'vitest/config';

// Data suite: checks loaders and headline numbers on ../shared/data (or $REPUTE_DATA_DIR).
export default defineConfig({
  test: {
    // Removes the temporary directories a test file made (src/testing/_test-temporary-directory.ts).
    setupFiles: ['src/testing/_test-setup.ts'],
    include: ['test/data/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
