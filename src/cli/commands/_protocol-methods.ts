// Per-method figures of a protocol run's summary (`repute run --protocol drf|raps`), from its task records.
import type { ProtocolRunSummary } from './_run-protocol.js';

function accuracy(values: ReadonlyArray<boolean | null>): number | null {
  const graded = values.filter((value): value is boolean => value !== null);
  return graded.length === 0 ? null : graded.filter(Boolean).length / graded.length;
}

/** A protocol session's task record, as far as the run summary reads it (DRF and RAPS records). */
interface GradedTaskRecord {
  readonly correct: boolean | null;
  readonly failures: number;
  readonly compared: Readonly<Record<string, { readonly correct: boolean | null }>>;
}

/** The summary's per-method figures: the protocol itself (`method`) and every method it was compared with. */
export function protocolMethods(
  method: string,
  records: readonly GradedTaskRecord[],
  resumed: number,
  compared: readonly string[],
): ProtocolRunSummary['methods'] {
  const methods: Record<string, ProtocolRunSummary['methods'][string]> = {
    [method]: {
      done: records.length,
      resumed,
      accuracy: accuracy(records.map((record) => record.correct)),
      failures: records.reduce((sum, record) => sum + record.failures, 0),
    },
  };
  for (const name of compared)
    methods[name] = {
      done: records.length,
      resumed,
      accuracy: accuracy(records.map((record) => record.compared[name]?.correct ?? null)),
      failures: 0,
    };
  return methods;
}
