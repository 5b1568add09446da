// Child process of the shared-cache test (shared-cache.test.ts): waits until `startAt`, then asks a
// slow scripted model one question through the cache middleware over the shared store. Each call
// that reaches the model books a ledger row with act 'provider-call' (the test counts them).
// Prints `text <reply>`.
import { generateText, wrapLanguageModel } from 'ai';
import { createCacheMiddleware } from '../llm/cache-middleware.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { openStore } from './store.js';

const [url, startAtText, name = 'w'] = process.argv.slice(2);
if (url === undefined || startAtText === undefined) {
  process.stderr.write('usage: _test-cache-worker.ts <url> <startAt> [name]\n');
  process.exit(2);
}
const store = openStore({ path: url });
const scripted = new ScriptedModel({
  replies: () => {
    store.recordUsage({
      act: 'provider-call',
      agentId: name,
      inputTokens: 3,
      outputTokens: 1,
      cost: 0.01,
      cached: false,
    });
    return { text: `answer from ${name}`, usage: { inputTokens: 3, outputTokens: 1 }, delayMs: 400 };
  },
});
const model = wrapLanguageModel({ model: scripted, middleware: createCacheMiddleware({ cache: store }) });
while (Date.now() < Number(startAtText)) {
  /* spin to the common start */
}
const { text } = await generateText({ model, prompt: 'What is 2 + 2?', maxRetries: 0 });
process.stdout.write(`text ${text}\n`);
store.close();
