// Vitest setup file (vitest.config.ts, vitest.data.config.ts): runs before each test file. Its
// `afterAll` is registered first, so it runs after the file's own `afterAll` hooks (vitest runs
// after-hooks in reverse order) have closed stores, servers, browsers and child processes.
import { afterAll } from 'vitest';
import { removeTemporaryDirectories } from './_test-temporary-directory.js';

afterAll(removeTemporaryDirectories);
