// Vitest setup file (vitest.config.ts, vitest.data.config.ts): runs before each test file. Its
// `afterAll` is registered first, so it runs after the file's own `afterAll` hooks (vitest runs
// after-hooks in reverse order) have closed stores, servers, browsers and child processes.
import { afterAll } from 'vitest';
import { removeTemporaryDirectories, temporaryDirectory } from './_test-temporary-directory.js';

afterAll(removeTemporaryDirectories);

// `repute replay` saves answer keys under $REPUTE_CACHE_DIR (else ~/.cache/repute): each test file,
// and every CLI process it starts, gets a cache of its own that goes with its temporary directories.
process.env.REPUTE_CACHE_DIR = temporaryDirectory('repute-cache-');
