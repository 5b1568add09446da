import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import type { DatasetFormat } from './format.js';
import { detectDatasetFormat, loadDataset } from './load-dataset.js';
import { mmluProFamily, splitCsvRow } from './mmlu-pro.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const root = temporaryDirectory('repute-loaders-');

function zeroevalDir(
  name: string,
  lines: readonly string[],
  models = [
    { model: 'm1@p', family: 'm1' },
    { model: 'm1@q', family: 'm1' },
    { model: 'm2', family: 'm2' },
  ],
  declared: Record<string, string> = { task: 'gsm' },
) {
  const directory = join(root, name);
  mkdirSync(directory);
  writeFileSync(join(directory, 'models.json'), JSON.stringify({ ...declared, models }));
  writeFileSync(join(directory, 'proposals.jsonl'), `${lines.join('\n')}\n`);
  return directory;
}

function mmluDir(
  name: string,
  rows: readonly string[],
  items = [
    { question_id: 1, question: 'Q1?', options: ['x', 'y', 'z', 'w'] },
    { question_id: 2, question: 'Q2?', options: ['x', 'y', 'z'] },
  ],
) {
  const directory = join(root, name);
  mkdirSync(directory);
  writeFileSync(
    join(directory, 'models.json'),
    JSON.stringify({ models: [{ model: 'Llama-7B' }, { model: 'Llama-7B-Instruct' }, { model: 'Other' }] }),
  );
  writeFileSync(join(directory, 'items.jsonl.gz'), gzipSync(items.map((item) => JSON.stringify(item)).join('\n')));
  writeFileSync(
    join(directory, 'preds.csv'),
    `question_id,category,answer,Llama-7B,Llama-7B-Instruct,Other\n${rows.join('\n')}\n`,
  );
  return directory;
}

describe('zeroeval loader', () => {
  it('loads tasks with flags, families as clone groups, absent agents left absent', async () => {
    const directory = zeroevalDir('ze-ok', [
      JSON.stringify({
        id: 'g1',
        question: 'Q',
        reference: '18',
        proposals: {
          'm1@p': { answer: '18', correct: true },
          'm1@q': { answer: null, correct: false },
          m2: { answer: '17', correct: false },
        },
      }),
      JSON.stringify({ id: 'g2', question: 'Q', reference: '3', proposals: { m2: { answer: '3', correct: true } } }),
    ]);
    expect(detectDatasetFormat(directory)).toBe('zeroeval');
    const dataset = await loadDataset(directory);
    expect(dataset.agents).toEqual([
      { id: 'm1@p', model: 'm1' },
      { id: 'm1@q', model: 'm1' },
      { id: 'm2', model: 'm2' },
    ]);
    expect(dataset.tasks.map((task) => [task.id, task.kind, Object.keys(task.proposals).length])).toEqual([
      ['g1', 'number-zeroeval', 3],
      ['g2', 'number-zeroeval', 1],
    ]);
    expect(dataset.tasks[0]?.proposals['m1@q']).toEqual({ answer: null, correct: false });
    expect(dataset.correctness).toBe('flags');
  });

  it('counts a task with no proposals and names the line of a bad one', async () => {
    const counted = zeroevalDir('ze-skip', [
      JSON.stringify({ id: 'g1', reference: '1', proposals: {} }),
      JSON.stringify({ id: 'g2', reference: '1', proposals: { m2: { answer: '1', correct: true } } }),
    ]);
    expect((await loadDataset(counted)).skipped).toEqual({ noProposals: 1 });
    const unknown = zeroevalDir('ze-unknown', [
      JSON.stringify({ id: 'g1', reference: '1', proposals: { stranger: { answer: '1', correct: true } } }),
    ]);
    await expect(loadDataset(unknown, 'zeroeval')).rejects.toThrow(
      /proposals\.jsonl:1: agent "stranger" is not listed/,
    );
    const badFlag = zeroevalDir('ze-flag', [
      JSON.stringify({ id: 'g1', reference: '1', proposals: {} }),
      '{"id":"g2","reference":"1","proposals":{"m2":{"answer":"1","correct":"yes"}}}',
    ]);
    await expect(loadDataset(badFlag, 'zeroeval')).rejects.toThrow(
      /proposals\.jsonl:2: "proposals\.m2\.correct" must be true or false/,
    );
    const malformed = zeroevalDir('ze-json', ['{"id":"g1","reference":"1","proposals":{}}', '{not json']);
    await expect(loadDataset(malformed, 'zeroeval')).rejects.toThrow(DataFormatError);
  });
});

describe('declared answer kinds', () => {
  const line = JSON.stringify({ id: 'c1', reference: "'ab'", proposals: { m2: { answer: "'ab'", correct: true } } });

  it('takes the kind from models.json: "kind" first, then the "task" tag, never the directory name', async () => {
    const crux = await loadDataset(zeroevalDir('ze-crux', [line], undefined, { task: 'crux' }));
    // The flags of ZeroEval's crux data come from its quote-stripped string rule, which the loader declares.
    expect(crux.tasks[0]?.kind).toBe('literal-zeroeval');
    expect(crux.kindSource).toBe('models.json "task": "crux"');
    const declared = await loadDataset(zeroevalDir('ze-kind', [line], undefined, { task: 'crux', kind: 'exact' }));
    expect(declared.tasks[0]?.kind).toBe('exact');
    expect(declared.kindSource).toBe('models.json "kind": "exact"');
    // A directory named like GSM8K with no declaration is not guessed to be `number`.
    const undeclared = await loadDataset(zeroevalDir('gsm8k-math-undeclared', [line], undefined, {}));
    expect(undeclared.tasks[0]?.kind).toBe('exact');
    expect(undeclared.kindSource).toBe('default: models.json has no "task" or "kind"; pass --kind to choose');
    const unknownTag = await loadDataset(zeroevalDir('ze-tag', [line], undefined, { task: 'mbpp' }));
    expect(unknownTag.kindSource).toBe(
      'default: models.json has "task": "mbpp" (no known kind); pass --kind to choose',
    );
    await expect(loadDataset(zeroevalDir('ze-badkind', [line], undefined, { kind: 'python' }))).rejects.toThrow(
      /"kind" must be one of number, math, choice, exact, labels, code, literal, literal-zeroeval, number-zeroeval, got "python"/,
    );
  });

  it('says where the kinds of the other formats come from', async () => {
    expect((await loadDataset(mmluDir('mm-kind', ['1,math,B,B,,NA']))).kindSource).toBe(
      'mmlu-pro format: option letters',
    );
    const path = join(root, 'kinds.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ schemaVersion: 1, id: 't', kind: 'literal', reference: '[1]', proposals: { a: { answer: '[1]' } } })}\n`,
    );
    expect((await loadDataset(path)).kindSource).toBe('each task\'s "kind" field');
  });
});

describe('mathvista loader', () => {
  function mathVistaDir(name: string) {
    const directory = join(root, name);
    mkdirSync(directory);
    writeFileSync(
      join(directory, 'models.json'),
      JSON.stringify({
        agents: [
          { agent: 'gpt4', base_model: 'gpt4' },
          { agent: 'gpt4_ocr', base_model: 'gpt4' },
          { agent: 'bard', base_model: 'bard' },
        ],
      }),
    );
    const items = [
      {
        pid: '1',
        question: 'Angle?',
        choices: ['135°', '140°', '145°'],
        answer: '145°',
        question_type: 'multi_choice',
        answer_type: 'text',
      },
      {
        pid: '2',
        question: 'Volume?',
        choices: null,
        answer: '1000',
        question_type: 'free_form',
        answer_type: 'integer',
      },
      {
        pid: '3',
        question: 'Years?',
        choices: null,
        answer: '[2014, 2016]',
        question_type: 'free_form',
        answer_type: 'list',
      },
    ];
    writeFileSync(join(directory, 'items.jsonl'), items.map((item) => JSON.stringify(item)).join('\n'));
    const proposals = [
      {
        pid: '1',
        answer: '145°',
        proposals: {
          gpt4: { extraction: '(C) 145°', prediction: '145°', correct: true },
          gpt4_ocr: { extraction: 'B', prediction: '140°', correct: false },
          bard: { extraction: '?', prediction: null, correct: null },
        },
      },
      { pid: '2', answer: '1000', proposals: { gpt4: { extraction: '1000 g', prediction: '1000', correct: true } } },
      {
        pid: '3',
        answer: '[2014, 2016]',
        proposals: { bard: { extraction: '2014, 2015', prediction: '2014, 2015', correct: false } },
      },
    ];
    writeFileSync(join(directory, 'proposals.jsonl'), proposals.map((record) => JSON.stringify(record)).join('\n'));
    return directory;
  }

  it("takes each task's kind from question_type / answer_type and maps option texts to letters", async () => {
    const directory = mathVistaDir('mv-ok');
    expect(detectDatasetFormat(directory)).toBe('mathvista');
    const dataset = await loadDataset(directory);
    expect(dataset.kindSource).toBe('items.jsonl "question_type" / "answer_type" per task');
    expect(dataset.agents).toEqual([
      { id: 'gpt4', model: 'gpt4' },
      { id: 'gpt4_ocr', model: 'gpt4' },
      { id: 'bard', model: 'bard' },
    ]);
    expect(dataset.tasks.map((task) => [task.id, task.kind, task.reference, task.options])).toEqual([
      ['1', 'choice', 'C', 3],
      ['2', 'number', '1000', undefined],
      ['3', 'literal', '[2014, 2016]', undefined],
    ]);
    // 145° is option C, 140° option B; a record with neither prediction nor flag is a wrong non-answer.
    expect(dataset.tasks[0]?.proposals).toEqual({
      gpt4: { answer: 'C', correct: true, text: '(C) 145°' },
      gpt4_ocr: { answer: 'B', correct: false, text: 'B' },
      bard: { answer: null, correct: false, text: '?' },
    });
    expect(dataset.correctness).toBe('flags');
  });
});

describe('mmlu-pro loader', () => {
  it('reads letters, treats empty as unparseable and NA as absent', async () => {
    const directory = mmluDir('mm-ok', ['1,math,B,B,,NA', '2,law,C,A,C,C']);
    expect(detectDatasetFormat(directory)).toBe('mmlu-pro');
    const dataset = await loadDataset(directory);
    const [first, second] = dataset.tasks;
    expect(first?.proposals).toEqual({
      'Llama-7B': { answer: 'B', correct: true },
      'Llama-7B-Instruct': { answer: null, correct: false },
    });
    expect(first?.options).toBe(4);
    expect(first?.kind).toBe('choice');
    expect(first?.prompt).toBe('Q1?\nA. x\nB. y\nC. z\nD. w');
    expect(second?.proposals.Other).toEqual({ answer: 'C', correct: true });
    // No family in models.json: base and instruct checkpoints share a clone group.
    expect(dataset.agents.map((agent) => agent.model)).toEqual(['llama-7b', 'llama-7b', 'other']);
  });

  it('counts a model of models.json that has no column of predictions', async () => {
    const directory = mmluDir('mm-listed-only', ['1,math,B,B,B,B']);
    writeFileSync(
      join(directory, 'models.json'),
      JSON.stringify({
        models: [{ model: 'Llama-7B' }, { model: 'Llama-7B-Instruct' }, { model: 'Other' }, { model: 'Unseen' }],
      }),
    );
    const dataset = await loadDataset(directory);
    expect(dataset.agents.map((agent) => agent.id)).toEqual(['Llama-7B', 'Llama-7B-Instruct', 'Other']);
    expect(dataset.skipped).toEqual({ modelsWithoutPredictions: 1 });
  });

  it('counts an all-NA row and names the line of a bad cell', async () => {
    expect((await loadDataset(mmluDir('mm-skip', ['1,math,B,NA,NA,NA', '2,law,C,A,C,C']))).skipped).toEqual({
      noProposals: 1,
    });
    await expect(loadDataset(mmluDir('mm-bad', ['1,math,B,B,B,B', '2,law,C,A,maybe,C']))).rejects.toThrow(
      /preds\.csv:3: agent Llama-7B-Instruct: prediction must be one letter, empty or NA, got "maybe"/,
    );
    await expect(loadDataset(mmluDir('mm-short', ['1,math,B,B,B']))).rejects.toThrow(
      /preds\.csv:2: expected 6 cells, got 5/,
    );
  });

  it('loads a letter that names none of the item options as unparseable, keeps it as text and counts it', async () => {
    // Item 1 has 4 options (A-D), item 2 has 3 (A-C). Row 1: J and E name no option of item 1, D does
    // (wrong: the answer is B). Row 2: D names no option of item 2, C is right, NA is absent.
    // Beyond the options: J, E (row 1) and D (row 2) = 3 predictions.
    const dataset = await loadDataset(mmluDir('mm-beyond', ['1,math,B,J,E,D', '2,law,C,D,C,NA']));
    expect(dataset.tasks.map((task) => task.proposals)).toEqual([
      {
        'Llama-7B': { answer: null, correct: false, text: 'J' },
        'Llama-7B-Instruct': { answer: null, correct: false, text: 'E' },
        Other: { answer: 'D', correct: false },
      },
      {
        'Llama-7B': { answer: null, correct: false, text: 'D' },
        'Llama-7B-Instruct': { answer: 'C', correct: true },
      },
    ]);
    expect(dataset.skipped).toEqual({ predictionsBeyondOptions: 3 });
  });

  it('refuses a reference letter that names none of the item options', async () => {
    // Item 2 has options A-C; its answer D cannot be right, and no prediction could match it.
    await expect(loadDataset(mmluDir('mm-bad-answer', ['1,math,B,B,B,B', '2,law,D,A,C,C']))).rejects.toThrow(
      /preds\.csv:3: "answer" D names no option of question_id 2, which has 3 options \(A-C\); /,
    );
  });

  it('splits quoted CSV cells and derives families', () => {
    expect(splitCsvRow('1,"a, b","say ""hi""",')).toEqual(['1', 'a, b', 'say "hi"', '']);
    expect(splitCsvRow('"open')).toBeNull();
    expect(mmluProFamily('Mistral-7B-Instruct-v0.2')).toBe('mistral-7b');
    expect(mmluProFamily('Mistral-7B-v0.1')).toBe('mistral-7b');
    expect(mmluProFamily('Meta-Llama-3_1-70B-Instruct')).toBe('meta-llama-3_1-70b');
  });
});

describe('format detection', () => {
  it('refuses an unknown directory with the options to pass', () => {
    const directory = join(root, 'nothing');
    mkdirSync(directory);
    writeFileSync(join(directory, 'readme.txt'), 'hi');
    expect(() => detectDatasetFormat(directory)).toThrow(
      /cannot detect the dataset format .* pass --format zeroeval\|mmlu-pro\|mathvista\|jsonl/,
    );
  });

  it('detects a Repute proposals file', () => {
    const path = join(root, 'mine.jsonl');
    writeFileSync(path, '{"schemaVersion":1,"format":"repute-proposals"}\n');
    expect(detectDatasetFormat(path)).toBe('jsonl');
  });

  it('refuses a dataset with an agent named like an inherited property, naming the file and the agent', async () => {
    // Agent ids key weights, scores and attack payloads: "toString" would read Object.prototype's.
    const path = join(root, 'inherited.jsonl');
    writeFileSync(
      path,
      [
        JSON.stringify({ schemaVersion: 1, format: 'repute-proposals', models: { toString: 'm1', b: 'm2' } }),
        JSON.stringify({
          id: 't1',
          kind: 'number',
          reference: '4',
          proposals: { toString: { answer: '4' }, b: { answer: '5' } },
        }),
      ].join('\n'),
    );
    const error = (await loadDataset(path).catch((caught: unknown) => caught)) as DataFormatError;
    expect(error).toBeInstanceOf(DataFormatError);
    expect(error.file).toBe(path);
    expect(error.message).toMatch(/agent "toString" is named like a property every JavaScript object inherits/);
  });

  it('refuses an unknown --format value', async () => {
    await expect(loadDataset(root, 'csv' as never)).rejects.toThrow(
      /format must be one of zeroeval, mmlu-pro, mathvista, jsonl/,
    );
  });
});

describe('awkward input files', () => {
  const task = (id: string, answer = '1') =>
    JSON.stringify({ id, reference: '1', proposals: { 'm1@p': { answer, correct: answer === '1' } } });

  it('reads a byte order mark, CRLF line ends, blank lines and a last line without newline alike', async () => {
    const plain = await loadDataset(zeroevalDir('ze-plain', [task('t1'), task('t2', '2')]));
    const directory = zeroevalDir('ze-bom-crlf', []);
    writeFileSync(join(directory, 'proposals.jsonl'), `\uFEFF\r\n${task('t1')}\r\n\r\n${task('t2', '2')}`);
    writeFileSync(
      join(directory, 'models.json'),
      `\uFEFF${JSON.stringify({
        task: 'gsm',
        models: [
          { model: 'm1@p', family: 'm1' },
          { model: 'm1@q', family: 'm1' },
          { model: 'm2', family: 'm2' },
        ],
      })}`,
    );
    expect(detectDatasetFormat(directory)).toBe('zeroeval');
    const loaded = await loadDataset(directory);
    expect(loaded.tasks).toEqual(plain.tasks);
    expect(loaded.agents).toEqual(plain.agents);
    // The CSV header of MMLU-Pro with a byte order mark.
    const mmlu = mmluDir('mm-bom', ['1,math,B,B,,NA']);
    writeFileSync(
      join(mmlu, 'preds.csv'),
      '\uFEFFquestion_id,category,answer,Llama-7B,Llama-7B-Instruct,Other\r\n1,math,B,B,,NA\r\n',
    );
    expect((await loadDataset(mmlu)).tasks.map((entry) => entry.id)).toEqual(['1']);
  });

  it('ends records at LF and CRLF only: a raw CR between tokens is whitespace, one in a string an error naming its line', async () => {
    const plain = await loadDataset(zeroevalDir('ze-lf', [task('t1'), task('t2', '2')]));
    const directory = zeroevalDir('ze-cr', []);
    // JSON allows a CR between tokens. Old: the CR ended the line, so detection failed ("cannot detect
    // the dataset format") and --format zeroeval read two broken halves.
    const spread = (text: string) => text.replace(',"proposals"', ',\r"proposals"');
    writeFileSync(join(directory, 'proposals.jsonl'), `${spread(task('t1'))}\r\n${spread(task('t2', '2'))}\n`);
    expect(detectDatasetFormat(directory)).toBe('zeroeval');
    expect((await loadDataset(directory)).tasks).toEqual(plain.tasks);
    // A CR does not count as a line: the malformed record is on line 3 (old: line 5).
    writeFileSync(join(directory, 'proposals.jsonl'), `${spread(task('t1'))}\n\n{oops\n`);
    await expect(loadDataset(directory)).rejects.toThrow(/proposals\.jsonl:3: malformed JSON/);
    // A raw CR inside a string (an answer written unescaped) is invalid JSON: the error says where and what to do.
    writeFileSync(join(directory, 'proposals.jsonl'), `${task('t1')}\n${task('t2', '2~0').replace('~', '\r')}\n`);
    await expect(loadDataset(directory)).rejects.toThrow(
      /proposals\.jsonl:2: malformed JSON .*raw carriage return \(\\r\) at column 60: only LF and CRLF end a record/,
    );
    // A classic Mac file (CR line ends only) is one line: refused, saying to convert it.
    writeFileSync(join(directory, 'proposals.jsonl'), `${task('t1')}\r${task('t2', '2')}\r`);
    await expect(loadDataset(directory)).rejects.toThrow(
      /proposals\.jsonl:1: malformed JSON .*classic Mac \(CR\) line ends needs converting first/,
    );
    // The same in MMLU-Pro's CSV. Old: CR-only rows loaded as rows, and a CR inside a row split it.
    const mmlu = mmluDir('mm-cr', []);
    writeFileSync(
      join(mmlu, 'preds.csv'),
      'question_id,category,answer,Llama-7B,Llama-7B-Instruct,Other\r\n1,math,B,B,,NA\r\n2,law,C,A,C\rC\r\n',
    );
    await expect(loadDataset(mmlu)).rejects.toThrow(
      /preds\.csv:3: a raw carriage return \(\\r\) at column 12; rows end at LF or CRLF only and no cell may hold a CR: .*tr '\\r' '\\n'/,
    );
    writeFileSync(
      join(mmlu, 'preds.csv'),
      'question_id,category,answer,Llama-7B,Llama-7B-Instruct,Other\r1,math,B,B,,NA\r2,law,C,A,C,C\r',
    );
    await expect(loadDataset(mmlu)).rejects.toThrow(/preds\.csv:1: a raw carriage return \(\\r\) at column 61/);
  });

  it('refuses a key given twice in one record of every loader, naming the file, line and key', async () => {
    // Old: JSON.parse kept the last value, so each of these loaded with a different answer, reference or family.
    const twiceMessage = (key: string, where: string) =>
      new RegExp(`key "${key}" appears twice ${where}: .*; JSON keeps only the last value`);
    const zeroeval = zeroevalDir('ze-twice-key', [task('t1')]);
    writeFileSync(
      join(zeroeval, 'proposals.jsonl'),
      `${task('t1')}\n{"id":"t2","reference":"1","proposals":{"m1@p":{"answer":"1","correct":true},"m1@p":{"answer":"2","correct":false}}}\n`,
    );
    await expect(loadDataset(zeroeval)).rejects.toThrow(
      /proposals\.jsonl:2: key "m1@p" appears twice in "proposals": \{"answer":"1","correct":true\}, then \{"answer":"2","correct":false\}/,
    );
    writeFileSync(join(zeroeval, 'proposals.jsonl'), `${task('t1')}\n`);
    writeFileSync(
      join(zeroeval, 'models.json'),
      '{"task":"gsm","models":[{"model":"m1@p","family":"m1"},{"model":"m2","family":"m2","family":"m1"}]}',
    );
    await expect(loadDataset(zeroeval)).rejects.toThrow(
      /models\.json:1: key "family" appears twice in "models\[1\]": "m2", then "m1"/,
    );

    const jsonl = join(root, 'twice-key.jsonl');
    writeFileSync(
      jsonl,
      '{"schemaVersion":1,"format":"repute-proposals","models":{"a":"m1"}}\n{"id":"t1","kind":"number","kind":"exact","proposals":{"a":{"answer":"1"}}}\n',
    );
    await expect(loadDataset(jsonl)).rejects.toThrow(twiceMessage('kind', 'at the top level of the record'));
    await expect(loadDataset(jsonl)).rejects.toThrow(/twice-key\.jsonl:2: /);

    const items = [{ question_id: 1, question: 'Q1?', options: ['x', 'y'] }];
    const mmlu = mmluDir('mm-twice-key', ['1,math,B,B,B,B'], items);
    writeFileSync(
      join(mmlu, 'items.jsonl.gz'),
      gzipSync('{"question_id":1,"question":"Q1?","options":["x","y"],"options":["x","y","z"]}\n'),
    );
    await expect(loadDataset(mmlu)).rejects.toThrow(/items\.jsonl\.gz:1: key "options" appears twice/);

    const mathVista = join(root, 'mv-twice-key');
    mkdirSync(mathVista);
    writeFileSync(join(mathVista, 'models.json'), JSON.stringify({ agents: [{ agent: 'a', base_model: 'a' }] }));
    writeFileSync(
      join(mathVista, 'items.jsonl'),
      `${JSON.stringify({ pid: '1', answer: '1', question_type: 'free_form', answer_type: 'integer' })}\n`,
    );
    writeFileSync(
      join(mathVista, 'proposals.jsonl'),
      '{"pid":"1","proposals":{"a":{"prediction":"1","correct":true,"prediction":"2"}}}\n',
    );
    await expect(loadDataset(mathVista)).rejects.toThrow(
      /proposals\.jsonl:1: key "prediction" appears twice in "proposals\.a"/,
    );
  });

  it('detects a format from a first line of several MB or with spaces around the keys', async () => {
    const long = JSON.stringify({
      id: 't1',
      question: 'x'.repeat(3_000_000),
      reference: '1',
      proposals: { m2: { answer: '1', correct: true } },
    });
    expect(detectDatasetFormat(zeroevalDir('ze-long', [long]))).toBe('zeroeval');
    const spaced = '{ "id": "t1", "reference": "1", "proposals": { "m2": { "answer": "1", "correct": true } } }';
    expect(detectDatasetFormat(zeroevalDir('ze-spaced', [spaced]))).toBe('zeroeval');
  });

  it('refuses invalid UTF-8 naming its line instead of replacing it', async () => {
    const directory = zeroevalDir('ze-latin1', []);
    const bad = Buffer.from(task('t2', 'caf\u00e9'), 'latin1');
    writeFileSync(
      join(directory, 'proposals.jsonl'),
      Buffer.concat([Buffer.from(`${task('t1')}\n\n`), bad, Buffer.from('\n')]),
    );
    await expect(loadDataset(directory, 'zeroeval')).rejects.toThrow(
      /proposals\.jsonl:3: invalid UTF-8 .*re-save the file as UTF-8/,
    );
  });

  it('refuses an agent listed twice instead of keeping one of its records', async () => {
    const twice = [
      { model: 'm2', family: 'm2' },
      { model: 'm2', family: 'm2' },
    ];
    await expect(loadDataset(zeroevalDir('ze-twice', [task('t1')], twice))).rejects.toThrow(
      /models\.json: models\[1\]\.model "m2" repeats models\[0\]; list each agent once/,
    );
    const directory = mmluDir('mm-twice', ['1,math,B,B,C,D']);
    writeFileSync(
      join(directory, 'preds.csv'),
      'question_id,category,answer,Llama-7B,Other,Llama-7B\n1,math,B,B,C,D\n',
    );
    await expect(loadDataset(directory)).rejects.toThrow(
      /preds\.csv:1: agent column "Llama-7B" appears twice \(columns 4 and 6\)/,
    );
  });

  it('refuses an item listed twice instead of keeping the last one', async () => {
    const items = [
      { question_id: 1, question: 'Q1?', options: ['x', 'y'] },
      { question_id: 1, question: 'Other Q1?', options: ['x', 'y', 'z'] },
    ];
    await expect(loadDataset(mmluDir('mm-item-twice', ['1,math,B,B,B,B'], items))).rejects.toThrow(
      /items\.jsonl\.gz:2: duplicate question_id 1 \(first on line 1\)/,
    );
  });

  it('says a forced directory format cannot read a file, and what to pass', async () => {
    const path = join(root, 'a file.jsonl');
    writeFileSync(path, '{"schemaVersion":1,"format":"repute-proposals"}\n');
    await expect(loadDataset(path, 'zeroeval')).rejects.toThrow(
      /--format zeroeval reads a dataset directory, but this is a file; .*--format jsonl/,
    );
    const empty = join(root, 'no-proposals');
    mkdirSync(empty);
    await expect(loadDataset(empty, 'jsonl')).rejects.toThrow(
      /no-proposals: --format jsonl on a directory reads its proposals\.jsonl, which does not exist/,
    );
  });
});

describe('files that hold no records', () => {
  /** The error `loadDataset` rejects with, or a failure naming what it resolved to instead. */
  async function loadError(path: string, format?: DatasetFormat): Promise<DataFormatError> {
    const outcome = await loadDataset(path, format).then(
      (dataset) => new Error(`loaded ${dataset.tasks.length} tasks`),
      (caught: unknown) => caught,
    );
    expect(outcome).toBeInstanceOf(DataFormatError);
    return outcome as DataFormatError;
  }
  const noRecords = /: the file holds no records \(it is empty or has only blank lines\); expected .+; /;

  it('refuses an empty or blank proposals file, with or without --format, naming the file', async () => {
    for (const [name, text] of [
      ['zero-bytes.jsonl', ''],
      ['blank-lines.jsonl', '\n  \r\n\t\n'],
      ['only-bom.jsonl', '\uFEFF\n'],
    ] as const) {
      const path = join(root, name);
      writeFileSync(path, text);
      for (const format of ['jsonl', undefined] as const) {
        const error = await loadError(path, format);
        expect(error.file).toBe(path);
        expect(error.line).toBeUndefined();
        expect(error.message).toMatch(noRecords);
      }
    }
  });

  it('refuses an empty proposals.jsonl of a ZeroEval or Repute directory, with or without --format', async () => {
    const directory = zeroevalDir('ze-empty', []);
    const proposals = join(directory, 'proposals.jsonl');
    writeFileSync(proposals, '\n\n');
    for (const format of ['zeroeval', 'jsonl', undefined] as const) {
      const error = await loadError(directory, format);
      expect(error.file).toBe(proposals);
      expect(error.message).toMatch(noRecords);
    }
    // Detection says the same, instead of "cannot detect the dataset format".
    expect(() => detectDatasetFormat(directory)).toThrow(noRecords);
  });

  it('refuses an empty item or prediction file of MMLU-Pro and MathVista, naming that file', async () => {
    const mmluItems = mmluDir('mm-empty-items', ['1,math,B,B,,NA'], []);
    expect((await loadError(mmluItems)).file).toBe(join(mmluItems, 'items.jsonl.gz'));
    // A 0-byte .gz is no gzip stream at all: it holds no records either.
    writeFileSync(join(mmluItems, 'items.jsonl.gz'), '');
    const zeroBytes = await loadError(mmluItems, 'mmlu-pro');
    expect(zeroBytes.file).toBe(join(mmluItems, 'items.jsonl.gz'));
    expect(zeroBytes.message).toMatch(noRecords);
    const mmluPreds = mmluDir('mm-empty-preds', []);
    writeFileSync(join(mmluPreds, 'preds.csv'), '\r\n');
    const preds = await loadError(mmluPreds, 'mmlu-pro');
    expect(preds.file).toBe(join(mmluPreds, 'preds.csv'));
    expect(preds.message).toMatch(noRecords);
    expect(preds.message).toMatch(/expected a header row question_id,category,answer,<agents\.\.\.>/);

    const mathVista = join(root, 'mv-empty');
    mkdirSync(mathVista);
    writeFileSync(join(mathVista, 'models.json'), JSON.stringify({ agents: [{ agent: 'a', base_model: 'a' }] }));
    writeFileSync(join(mathVista, 'items.jsonl'), '');
    writeFileSync(
      join(mathVista, 'proposals.jsonl'),
      `${JSON.stringify({ pid: '1', proposals: { a: { prediction: '1', correct: true } } })}\n`,
    );
    const items = await loadError(mathVista, 'mathvista');
    expect(items.file).toBe(join(mathVista, 'items.jsonl'));
    expect(items.message).toMatch(noRecords);
    writeFileSync(
      join(mathVista, 'items.jsonl'),
      `${JSON.stringify({ pid: '1', answer: '1', question_type: 'free_form', answer_type: 'integer' })}\n`,
    );
    writeFileSync(join(mathVista, 'proposals.jsonl'), ' \n');
    for (const format of ['mathvista', undefined] as const) {
      const proposals = await loadError(mathVista, format);
      expect(proposals.file).toBe(join(mathVista, 'proposals.jsonl'));
      expect(proposals.message).toMatch(noRecords);
    }
  });
});
