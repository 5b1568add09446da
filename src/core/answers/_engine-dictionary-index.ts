// An index of the compute engine's LaTeX dictionary for its parser's two lookups (ours; same results).
//
// The engine's parser (0.27.0) finds the definitions that may start at the current token by walking
// all 589 definitions of its dictionary for every candidate trigger, at every token, in
// `peekDefinitions` and `getDefs`: about a third of the time it takes to key a math answer. This
// module answers the same two questions from an index built once per dictionary, with the same
// definitions in the same order, so every parse returns what it returned before. It applies only to
// dictionaries registered with it (the engines `math` answer kinds create), only when the engine is
// the version it was written against, and it leaves the stock parser alone otherwise.
import type { ComputeEngine } from '@cortex-js/compute-engine';
import { version as engineVersion } from '@cortex-js/compute-engine';

/** The engine version whose parser internals this index was written against and checked on. */
export const indexedEngineVersion = '0.27.0';

/** One definition of the engine's indexed LaTeX dictionary (the fields the lookups read). */
interface DictionaryDefinition {
  readonly kind: string;
  readonly latexTrigger?: string;
  readonly identifierTrigger?: string;
}

/** The engine's indexed LaTeX dictionary (internal to the engine). */
interface IndexedDictionary {
  readonly lookahead: number;
  readonly defs: readonly DictionaryDefinition[];
}

/** The parser methods the index replaces, and the state they read (internal to the engine). */
interface ParserPrototype {
  peekDefinitions(this: ParserState, kind: string): [DictionaryDefinition, number][];
  getDefs(this: ParserState, kind: string): Iterable<DictionaryDefinition>;
}

interface ParserState {
  _dictionary: IndexedDictionary;
  readonly atEnd: boolean;
  lookAhead(): [number, string][];
}

/** One kind's definitions, in the order `getDefs` yields them (last defined first). */
interface KindIndex {
  readonly definitions: readonly DictionaryDefinition[];
  /** Definitions whose trigger is the empty string (they match at every token). */
  readonly emptyTrigger: readonly DictionaryDefinition[];
  /** Definitions by their LaTeX trigger, each list in `definitions` order. */
  readonly byTrigger: ReadonlyMap<string, readonly DictionaryDefinition[]>;
  /**
   * The definitions with an identifier trigger, as a dictionary of their own: the stock lookup run on
   * it finds exactly the identifier matches (none of them has a LaTeX trigger), in the same order.
   */
  readonly identifiers: IndexedDictionary | undefined;
}

/** A kind the index leaves to the stock lookup: a definition with both kinds of trigger (none in 0.27.0). */
const stock = null;

interface DictionaryIndex {
  /** `defs.length` when indexed: a dictionary grown afterwards is indexed again. */
  readonly size: number;
  readonly kinds: Map<string, KindIndex | typeof stock>;
}

const registered = new WeakMap<IndexedDictionary, DictionaryIndex>();
let installed: boolean | undefined;

function ofKind(definition: DictionaryDefinition, kind: string): boolean {
  // As the stock getDefs: `operator` is any prefix, infix or postfix definition.
  return kind === 'operator' ? /^prefix|infix|postfix/.test(definition.kind) : definition.kind === kind;
}

function buildKindIndex(dictionary: IndexedDictionary, kind: string): KindIndex | typeof stock {
  const definitions: DictionaryDefinition[] = [];
  for (let position = dictionary.defs.length - 1; position >= 0; position--) {
    const definition = dictionary.defs[position] as DictionaryDefinition;
    if (ofKind(definition, kind)) definitions.push(definition);
  }
  const emptyTrigger = definitions.filter((definition) => definition.latexTrigger === '');
  const byTrigger = new Map<string, DictionaryDefinition[]>();
  for (const definition of definitions) {
    if (typeof definition.latexTrigger !== 'string') continue;
    const list = byTrigger.get(definition.latexTrigger);
    if (list === undefined) byTrigger.set(definition.latexTrigger, [definition]);
    else list.push(definition);
  }
  const withIdentifier = definitions.filter((definition) => definition.identifierTrigger !== undefined);
  // The stock lookup on the identifier definitions alone would also match such a definition's LaTeX trigger.
  if (withIdentifier.some((definition) => definition.latexTrigger !== undefined)) return stock;
  return {
    definitions: Object.freeze(definitions),
    emptyTrigger,
    byTrigger,
    // Stored first-defined first, as the engine stores them; getDefs walks them back to front.
    identifiers:
      withIdentifier.length === 0 ? undefined : { lookahead: 0, defs: Object.freeze(withIdentifier.slice().reverse()) },
  };
}

/** The kind's index when the dictionary is registered, else `undefined` (the stock lookup runs). */
function kindIndex(dictionary: IndexedDictionary, kind: string): KindIndex | undefined {
  let index = registered.get(dictionary);
  if (index === undefined) return undefined;
  if (index.size !== dictionary.defs.length) {
    index = { size: dictionary.defs.length, kinds: new Map() };
    registered.set(dictionary, index);
  }
  let entry = index.kinds.get(kind);
  if (entry === undefined) {
    entry = buildKindIndex(dictionary, kind);
    index.kinds.set(kind, entry);
  }
  return entry ?? undefined;
}

/**
 * Finds the parser's prototype through one parse: the handlers of the `\pi` definitions are wrapped
 * for that parse only, and see the parser. `undefined` when the dictionary has no such handler.
 */
function parserPrototypeOf(engine: ComputeEngine, dictionary: IndexedDictionary): ParserPrototype | undefined {
  type Handler = (parser: unknown, ...rest: unknown[]) => unknown;
  const pis = dictionary.defs.filter(
    (definition) =>
      definition.latexTrigger === '\\pi' && typeof (definition as { parse?: unknown }).parse === 'function',
  ) as (DictionaryDefinition & { parse: Handler })[];
  if (pis.length === 0) return undefined;
  const handlers = pis.map((definition) => definition.parse);
  let prototype: unknown;
  pis.forEach((definition, index) => {
    const handler = handlers[index] as Handler;
    definition.parse = (parser, ...rest) => {
      prototype ??= Object.getPrototypeOf(parser);
      return handler(parser, ...rest);
    };
  });
  engine.pushScope();
  try {
    engine.parse('\\pi');
  } finally {
    engine.popScope();
    pis.forEach((definition, index) => {
      definition.parse = handlers[index] as Handler;
    });
  }
  const candidate = prototype as Partial<ParserPrototype> | undefined;
  return typeof candidate?.peekDefinitions === 'function' && typeof candidate.getDefs === 'function'
    ? (candidate as ParserPrototype)
    : undefined;
}

function install(prototype: ParserPrototype): void {
  const stockPeek = prototype.peekDefinitions;
  const stockGetDefs = prototype.getDefs;
  prototype.getDefs = function getDefs(kind) {
    return kindIndex(this._dictionary, kind)?.definitions ?? stockGetDefs.call(this, kind);
  };
  prototype.peekDefinitions = function peekDefinitions(kind) {
    const index = kindIndex(this._dictionary, kind);
    if (index === undefined) return stockPeek.call(this, kind);
    // The stock order: empty triggers, then each lookahead (longest first), then identifier triggers.
    if (this.atEnd) return [];
    const result: [DictionaryDefinition, number][] = [];
    for (const definition of index.emptyTrigger) result.push([definition, 0]);
    for (const [count, tokens] of this.lookAhead()) {
      const matches = index.byTrigger.get(tokens);
      if (matches !== undefined) for (const definition of matches) result.push([definition, count]);
    }
    if (index.identifiers !== undefined) {
      const dictionary = this._dictionary;
      this._dictionary = index.identifiers;
      try {
        for (const match of stockPeek.call(this, kind)) result.push(match);
      } finally {
        this._dictionary = dictionary;
      }
    }
    return result;
  };
}

/**
 * Makes `engine`'s parses use the dictionary index; returns whether it does. A no-op returning
 * false for another engine version or a parser without the expected internals (parses then run the
 * stock lookups, with the same results, slower).
 *
 * @example
 * const engine = new ComputeEngine();
 * indexEngineDictionary(engine); // true on 0.27.0
 */
export function indexEngineDictionary(engine: ComputeEngine): boolean {
  if (engineVersion !== indexedEngineVersion) return false;
  const dictionary = (engine as unknown as { indexedLatexDictionary?: IndexedDictionary }).indexedLatexDictionary;
  if (dictionary === undefined || !Array.isArray(dictionary.defs)) return false;
  if (installed === undefined) {
    const prototype = parserPrototypeOf(engine, dictionary);
    installed = prototype !== undefined;
    if (prototype !== undefined) install(prototype);
  }
  if (!installed) return false;
  if (!registered.has(dictionary)) registered.set(dictionary, { size: dictionary.defs.length, kinds: new Map() });
  return true;
}

/** Stops indexing `engine`'s dictionary (its parses run the stock lookups again); for tests. */
export function unindexEngineDictionary(engine: ComputeEngine): void {
  const dictionary = (engine as unknown as { indexedLatexDictionary?: IndexedDictionary }).indexedLatexDictionary;
  if (dictionary !== undefined) registered.delete(dictionary);
}
