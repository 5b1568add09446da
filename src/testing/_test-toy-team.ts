// Internal test helper: task and team files for `repute run` against the toy team endpoint
// (toy-team-endpoint.ts), shared by the CLI's DRF and RAPS run tests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A task of {@link toyTasks}: `What is a * c + b?` with its reference. */
export interface ToyRunTask {
  readonly id: string;
  readonly prompt: string;
  readonly kind: 'number';
  readonly reference: string;
}

/** `What is a * c + b?` tasks with references (the toy endpoint answers from them). */
export function toyTasks(count: number): ToyRunTask[] {
  return Array.from({ length: count }, (_, index) => {
    const a = 10 + 3 * index;
    const b = 11 + 5 * (index % 7);
    const c = 2 + ((index * 13) % 9);
    return { id: `t${index + 1}`, prompt: `What is ${a} * ${c} + ${b}?`, kind: 'number', reference: String(a * c + b) };
  });
}

/** A team member of a toy team file: id, toy model name and its price (YAML flow map). */
export type ToyMember = [id: string, model: string, price: string];

/** Four honest toy agents at different prices. */
export const toyHonest: ToyMember[] = [
  ['honest-a', 'toy-honest-a', '{ inputPerMillion: 0.15, outputPerMillion: 0.6 }'],
  ['honest-b', 'toy-honest-b', '{ inputPerMillion: 1, outputPerMillion: 4 }'],
  ['honest-c', 'toy-honest-c', '{ inputPerMillion: 5, outputPerMillion: 15 }'],
  ['honest-d', 'toy-honest-d', '{ inputPerMillion: 0.5, outputPerMillion: 2 }'],
];

/** A sloppy toy agent (every third task wrong). */
export const toySloppy: ToyMember = ['sloppy', 'toy-sloppy', '{ inputPerMillion: 0.1, outputPerMillion: 0.4 }'];

/** Two colluding toy agents (the same wrong answer; they rate each other 1 and everyone else 0). */
export const toyColluders: ToyMember[] = [
  ['colluder-1', 'toy-colluder-1', '{ inputPerMillion: 0.1, outputPerMillion: 0.4 }'],
  ['colluder-2', 'toy-colluder-2', '{ inputPerMillion: 0.1, outputPerMillion: 0.4 }'],
];

/**
 * Writes `tasks.jsonl` and `team.yaml` (store `repute.db`, fresh reputation, no retries, compared
 * method plurality) into `dir`; returns the team file path.
 */
export function writeToyTeam(
  dir: string,
  {
    name,
    baseURL,
    tasks,
    protocol,
    agents,
  }: {
    name: string;
    baseURL: string;
    tasks: readonly ToyRunTask[];
    /** The protocol's flow map inside the braces, e.g. `type: drf, k: 5`. */
    protocol: string;
    agents: readonly ToyMember[];
  },
): string {
  writeFileSync(join(dir, 'tasks.jsonl'), `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
  const lines = agents
    .map(
      ([id, model, price]) =>
        `  - id: ${id}\n    provider: openai-compatible\n    model: ${model}\n    baseURL: ${baseURL}\n    price: ${price}`,
    )
    .join('\n');
  const file = join(dir, 'team.yaml');
  writeFileSync(
    file,
    `name: ${name}\nstore: repute.db\ntasks: tasks.jsonl\nreputation: fresh\nmaxRetries: 0\nprotocol: { ${protocol} }\nmethods: [plurality]\nagents:\n${lines}\n`,
  );
  return file;
}
