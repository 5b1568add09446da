import { describe, expectTypeOf, it } from 'vitest';
import type { DrfConfig, DrfExperimentConfig } from '../../eval/index.js';
import type { DrfProtocolSettings, DrfSessionProtocol } from '../index.js';

// The renamed DRF parts (docs/drf.md, "Six things called drf") keep their old public names as
// deprecated aliases of the same types; `tsc --noEmit` checks these assertions.
describe('renamed DRF names', () => {
  it('keeps DrfSessionProtocol as an alias of DrfProtocolSettings', () => {
    expectTypeOf<DrfSessionProtocol>().toEqualTypeOf<DrfProtocolSettings>();
  });

  it('keeps DrfConfig as an alias of DrfExperimentConfig', () => {
    expectTypeOf<DrfConfig>().toEqualTypeOf<DrfExperimentConfig>();
  });
});
