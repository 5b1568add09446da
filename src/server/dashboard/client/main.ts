// The Repute dashboard: runs list, run page (per-method results, reputation chart, decision
// explorer, live updates over SSE), replay page (accuracy per attack) and team reputation.
// Hash routes: #/ · #/runs/<id>[?task=<taskId>] · #/replays · #/replays/<name> · #/teams
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import type uPlot from 'uplot';
import { followEvents, getJson, setToken, UnauthorizedError } from './api.js';
import { attackChart, reputationChart } from './charts.js';
import { fixed, h, money, percent, when } from './format.js';
import type {
  DecisionPage,
  MethodDecision,
  ReplayListing,
  ReplayView,
  ReputationSeries,
  RunListItem,
  RunView,
  TaskTrace,
  TeamReputation,
  TeamSummary,
} from './types.js';

const main = document.getElementById('main') as HTMLElement;
const liveBadge = document.getElementById('live') as HTMLElement;
let pageAbort = new AbortController();
const charts: uPlot[] = [];

function enc(value: string): string {
  return encodeURIComponent(value);
}

/** Thrown by setPage when the user has moved on while the page loaded: the stale view is dropped. */
class StalePage extends Error {}

/**
 * Shows a page, unless `signal` (the page's own, from `pageAbort`) was aborted by a later route: a
 * slow page finishing after the user navigated away must not paint over the page they moved to.
 */
function setPage(signal: AbortSignal, ...children: Node[]): void {
  if (signal.aborted) throw new StalePage('the user navigated away');
  for (const chart of charts.splice(0)) chart.destroy();
  main.replaceChildren(...children);
}

function tokenForm(signal: AbortSignal, refused: boolean): void {
  const input = h('input', { type: 'password', placeholder: 'bearer token', 'aria-label': 'token' });
  setPage(
    signal,
    h('h1', {}, 'Token required'),
    ...(refused
      ? [
          h(
            'p',
            { class: 'error', role: 'alert', 'data-testid': 'token-error' },
            'The server refused this token: it is not the one repute serve was started with (--token or REPUTE_SERVE_TOKEN). Check it and enter it again.',
          ),
        ]
      : []),
    h('p', {}, 'This server was started with --token. Enter it to continue (kept in this tab only).'),
    h(
      'form',
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          setToken(input.value);
          void route();
        },
      },
      input,
      h('button', { type: 'submit' }, 'Continue'),
    ),
  );
}

function statusBadge(status: string): HTMLElement {
  return h('span', { class: `status status-${status}` }, status);
}

/** How often the runs list asks for new runs and statuses, in ms. */
const RUNS_POLL_MS = 2000;

async function runsPage(): Promise<void> {
  const signal = pageAbort.signal;
  const box = h('div', { 'data-testid': 'runs-live' });
  setPage(signal, h('h1', {}, 'Runs'), box);
  let shown = '';
  // The list follows the store without a reload: new runs, statuses and task counts.
  for (;;) {
    const { runs } = await getJson<{ runs: RunListItem[] }>('/api/runs');
    if (signal.aborted) return;
    const key = JSON.stringify(runs);
    if (key !== shown) {
      shown = key;
      box.replaceChildren(runsTable(runs));
    }
    await new Promise((resolve) => setTimeout(resolve, RUNS_POLL_MS));
    if (signal.aborted) return;
  }
}

function runsTable(runs: RunListItem[]): Node {
  return runs.length === 0
    ? h('p', {}, 'No runs in this store yet. Start one with repute run team.yaml.')
    : h(
        'table',
        { 'data-testid': 'runs' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'run'),
            h('th', {}, 'team'),
            h('th', {}, 'kind'),
            h('th', {}, 'status'),
            h('th', { class: 'num' }, 'tasks'),
            h('th', {}, 'started'),
          ),
        ),
        h(
          'tbody',
          {},
          ...runs.map((run) =>
            h(
              'tr',
              {},
              h('td', {}, h('a', { href: `#/runs/${enc(run.id)}` }, run.id)),
              h('td', {}, run.team ?? '–'),
              h('td', {}, run.kind),
              h('td', {}, statusBadge(run.status)),
              h('td', { class: 'num' }, run.tasks),
              h('td', {}, when(run.createdAt)),
            ),
          ),
        ),
      );
}

function methodTable(run: RunView): HTMLElement {
  return h(
    'table',
    { 'data-testid': 'methods' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[
          'method',
          'tasks',
          'accuracy',
          'failed acts',
          'calls',
          'cached',
          'failed calls',
          'usage unreported',
          'tokens in',
          'tokens out',
          'cost',
        ].map((label, index) => h('th', { class: index === 0 ? '' : 'num' }, label)),
      ),
    ),
    h(
      'tbody',
      {},
      ...run.methods.map((method) =>
        h(
          'tr',
          { 'data-method': method.name },
          h('td', {}, method.name),
          h('td', { class: 'num' }, method.tasks),
          h('td', { class: 'num' }, percent(method.accuracy)),
          h('td', { class: 'num' }, method.failures),
          h('td', { class: 'num' }, method.usage.calls),
          h('td', { class: 'num' }, method.usage.cachedCalls),
          h('td', { class: 'num', 'data-usage': 'failed' }, method.usage.failedCalls),
          h('td', { class: 'num', 'data-usage': 'unreported' }, method.usage.unreportedUsageCalls),
          h('td', { class: 'num' }, method.usage.inputTokens),
          h('td', { class: 'num' }, method.usage.outputTokens),
          h('td', { class: 'num' }, money(method.usage.cost)),
        ),
      ),
    ),
    h(
      'tfoot',
      {},
      h(
        'tr',
        {},
        h('td', {}, 'run'),
        h('td', {}),
        h('td', {}),
        h('td', {}),
        h('td', { class: 'num' }, run.usage.calls),
        h('td', { class: 'num' }, run.usage.cachedCalls),
        h('td', { class: 'num', 'data-usage': 'failed' }, run.usage.failedCalls),
        h('td', { class: 'num', 'data-usage': 'unreported' }, run.usage.unreportedUsageCalls),
        h('td', { class: 'num' }, run.usage.inputTokens),
        h('td', { class: 'num' }, run.usage.outputTokens),
        h('td', { class: 'num' }, money(run.usage.cost)),
      ),
    ),
  );
}

/** "Why was this agent trusted on this task": one row per agent with the weight's parts. */
function explainDecision(method: string, decision: MethodDecision): HTMLElement {
  const rows = [...decision.weights].sort((left, right) => right.weight - left.weight);
  const total = rows.reduce((sum, row) => sum + row.weight, 0);
  return h(
    'section',
    { class: 'decision', 'data-testid': `decision-${method}` },
    h(
      'h3',
      {},
      `${method}: decided `,
      h('code', {}, decision.answer ?? '(none)'),
      decision.correct === null ? '' : decision.correct ? ' ✓ correct' : ' ✗ wrong',
      decision.failures > 0 ? ` · ${decision.failures} failed act(s)` : '',
      decision.readVersion === null ? '' : ` · read reputation log version ${decision.readVersion}`,
    ),
    h(
      'table',
      { class: 'weights' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            'agent',
            'answer',
            'weight',
            'share',
            'reputation before → after',
            'weight components',
            'reason',
            'selection',
          ].map((label) => h('th', {}, label)),
        ),
      ),
      h(
        'tbody',
        {},
        ...rows.map((row) =>
          h(
            'tr',
            { 'data-agent': row.agentId, class: row.answer !== null && row.answer === decision.answer ? 'agrees' : '' },
            h('td', {}, row.agentId),
            h('td', {}, h('code', {}, row.answer ?? '–')),
            h('td', { class: 'num weight' }, fixed(row.weight)),
            h('td', { class: 'num' }, total > 0 ? percent(row.weight / total) : '–'),
            h('td', { class: 'num' }, `${fixed(row.reputationBefore)} → ${fixed(row.reputationAfter)}`),
            h(
              'td',
              { class: 'components' },
              Object.keys(row.components).length === 0
                ? '–'
                : Object.entries(row.components)
                    .map(([name, value]) => `${name} ${fixed(value)}`)
                    .join(' · '),
            ),
            h('td', { class: 'reason' }, row.note ?? '–'),
            h(
              'td',
              {},
              row.selected
                ? (row.selectionNote ?? 'selected')
                : `excluded${row.selectionNote ? `: ${row.selectionNote}` : ''}`,
            ),
          ),
        ),
      ),
    ),
  );
}

/** One task as a trace: every model call on a shared time axis, with the agent's verdict and weight. */
function traceView(trace: TaskTrace): HTMLElement {
  const decision = trace.methods.minirep ?? Object.values(trace.methods)[0];
  const weights = new Map((decision?.weights ?? []).map((row) => [row.agentId, row]));
  const start = trace.startedAt ?? 0;
  const span = Math.max(1, (trace.endedAt ?? start) - start);
  const rows = [...trace.calls].sort((left, right) => (left.startedAt ?? 0) - (right.startedAt ?? 0));
  return h(
    'section',
    { class: 'trace', 'data-testid': 'trace' },
    h(
      'h3',
      {},
      `Trace: ${trace.calls.length} call(s), ${trace.endedAt === null ? '–' : `${Math.round(span)} ms`}, ${trace.usage.inputTokens} + ${trace.usage.outputTokens} tokens, ${money(trace.usage.cost)}`,
    ),
    ...rows.map((call) => {
      const weight = call.agentId === null ? undefined : weights.get(call.agentId);
      const verdict =
        weight === undefined || decision === undefined
          ? ''
          : weight.answer === null
            ? 'no answer'
            : weight.answer === decision.answer
              ? 'agreed'
              : 'disagreed';
      const left = call.startedAt === null ? 0 : ((call.startedAt - start) / span) * 100;
      const width =
        call.startedAt === null || call.endedAt === null ? 0 : ((call.endedAt - call.startedAt) / span) * 100;
      const duration =
        call.startedAt === null || call.endedAt === null ? '–' : `${Math.round(call.endedAt - call.startedAt)} ms`;
      const asked = call.messages?.filter((message) => message.role !== 'system').at(-1)?.content ?? null;
      return h(
        'div',
        { class: `trace-call ${call.status === 'failed' ? 'failed' : ''}`, 'data-agent': call.agentId ?? '' },
        h(
          'div',
          { class: 'trace-head' },
          h('strong', {}, call.agentId ?? '?'),
          ` ${call.act ?? ''} · ${call.model ?? ''} · `,
          h('span', { 'data-testid': 'latency' }, duration),
          ` · ${call.inputTokens} + ${call.outputTokens} tokens · ${money(call.cost)}`,
          call.cached ? ' · cached' : '',
          call.status === 'failed' ? ' · failed' : '',
          weight ? ` · answer ${weight.answer ?? '–'} · weight ${fixed(weight.weight)}` : '',
          verdict ? h('span', { class: `verdict verdict-${verdict.replace(' ', '-')}` }, ` ${verdict}`) : '',
        ),
        h(
          'div',
          { class: 'bar-track' },
          h('div', {
            class: 'bar',
            style: `margin-left:${left.toFixed(2)}%;width:${Math.max(0.5, width).toFixed(2)}%`,
          }),
        ),
        call.completion === null && asked === null
          ? h('p', { class: 'meta' }, 'content not captured')
          : h(
              'details',
              {},
              h('summary', {}, 'reply'),
              asked === null ? '' : h('pre', { class: 'asked' }, asked),
              h('pre', { class: 'reply', 'data-testid': 'reply' }, call.completion ?? '(no text)'),
            ),
      );
    }),
  );
}

async function runPage(runId: string, query: URLSearchParams): Promise<void> {
  const signal = pageAbort.signal;
  const title = h('h1', {}, `Run ${runId}`);
  const meta = h('p', { class: 'meta' });
  const methods = h('div');
  const chartBox = h('div', { class: 'chart', 'data-testid': 'reputation-chart' });
  const methodSelect = h('select', { 'aria-label': 'method', 'data-testid': 'chart-method' });
  const taskList = h('div', { class: 'tasks' });
  const explorer = h(
    'div',
    { 'data-testid': 'decision-explorer' },
    h('p', {}, 'Choose a task to see why each agent was trusted.'),
  );
  const liveCount = h('span', { 'data-testid': 'live-events' }, '0');
  const liveLine = h('p', { class: 'live-line', hidden: true }, 'live: ', liveCount, ' events received');
  setPage(
    signal,
    title,
    meta,
    liveLine,
    h('h2', {}, 'Methods'),
    methods,
    h('h2', {}, 'Reputation over tasks ', methodSelect),
    chartBox,
    h('h2', {}, 'Decision explorer'),
    h('div', { class: 'explorer' }, taskList, explorer),
  );

  let series: ReputationSeries | undefined;
  let selectedTask = query.get('task') ?? undefined;
  let offset = Number(query.get('offset') ?? 0) || 0;
  const limit = 25;

  const drawChart = () => {
    const method = series?.methods.find((entry) => entry.name === methodSelect.value) ?? series?.methods[0];
    for (const chart of charts.splice(0)) chart.destroy();
    if (!method) {
      chartBox.replaceChildren(
        h('p', {}, 'No reputation recorded yet (methods without a reputation model have none).'),
      );
      chartBox.dataset.points = '0';
      return;
    }
    charts.push(reputationChart(chartBox, method.taskIds, method.scores));
  };
  methodSelect.addEventListener('change', drawChart);

  const showTask = async (taskId: string) => {
    selectedTask = taskId;
    for (const row of taskList.querySelectorAll('tr[data-task]'))
      row.classList.toggle('selected', (row as HTMLElement).dataset.task === taskId);
    // A URL per task: the address bar names the task shown, so it can be shared or reloaded.
    history.replaceState(null, '', `#/runs/${enc(runId)}?task=${enc(taskId)}`);
    const trace = await getJson<TaskTrace>(`/api/runs/${enc(runId)}/tasks/${enc(taskId)}/trace`);
    explorer.replaceChildren(
      h('h3', { 'data-testid': 'explored-task' }, `Task ${trace.taskId}`),
      ...Object.entries(trace.methods).map(([method, decision]) => explainDecision(method, decision)),
      traceView(trace),
    );
  };

  const loadTasks = async () => {
    // Newest first: a live run's latest tasks are on top.
    const page = await getJson<DecisionPage>(
      `/api/runs/${enc(runId)}/decisions?offset=${offset}&limit=${limit}&order=desc`,
    );
    const methodNames = [...new Set(page.tasks.flatMap((task) => Object.keys(task.methods)))];
    const pager = h(
      'p',
      { class: 'pager' },
      h(
        'button',
        {
          type: 'button',
          disabled: offset === 0,
          onclick: () => {
            offset = Math.max(0, offset - limit);
            void loadTasks();
          },
        },
        '‹ prev',
      ),
      ` tasks ${page.total === 0 ? 0 : offset + 1}–${Math.min(page.total, offset + limit)} of ${page.total} `,
      h(
        'button',
        {
          type: 'button',
          disabled: offset + limit >= page.total,
          onclick: () => {
            offset += limit;
            void loadTasks();
          },
        },
        'next ›',
      ),
    );
    taskList.replaceChildren(
      pager,
      h(
        'table',
        { 'data-testid': 'tasks' },
        h('thead', {}, h('tr', {}, h('th', {}, 'task'), ...methodNames.map((name) => h('th', {}, name)))),
        h(
          'tbody',
          {},
          ...page.tasks.map((task) =>
            h(
              'tr',
              {
                'data-task': task.taskId,
                class: task.taskId === selectedTask ? 'selected' : '',
                onclick: () => void showTask(task.taskId),
              },
              h(
                'td',
                {},
                h(
                  'a',
                  {
                    href: `#/runs/${enc(runId)}?task=${enc(task.taskId)}`,
                    onclick: (event: Event) => {
                      event.preventDefault();
                      void showTask(task.taskId);
                    },
                  },
                  task.taskId,
                ),
              ),
              ...methodNames.map((name) => {
                const decision = task.methods[name];
                return h(
                  'td',
                  { class: decision?.correct === true ? 'right' : decision?.correct === false ? 'wrong' : '' },
                  decision ? (decision.answer ?? '–') : '',
                );
              }),
            ),
          ),
        ),
      ),
    );
  };

  const refresh = async () => {
    const run = await getJson<RunView>(`/api/runs/${enc(runId)}`);
    meta.replaceChildren(
      statusBadge(run.status),
      ` ${run.kind} · team ${run.team ?? '–'} · started ${when(run.createdAt)} · updated ${when(run.updatedAt)}`,
    );
    methods.replaceChildren(methodTable(run));
    series = await getJson<ReputationSeries>(`/api/runs/${enc(runId)}/reputation`);
    const current = methodSelect.value;
    methodSelect.replaceChildren(
      ...series.methods.map((method) =>
        h('option', { value: method.name, selected: method.name === current }, method.name),
      ),
    );
    if (!current) {
      const preferred = series.methods.find((method) => method.name === 'minirep') ?? series.methods[0];
      if (preferred) methodSelect.value = preferred.name;
    }
    drawChart();
    await loadTasks();
    return run;
  };

  const run = await refresh();
  if (selectedTask) await showTask(selectedTask);
  if (run.status === 'running' && !signal.aborted) {
    liveLine.hidden = false;
    liveBadge.hidden = false;
    let received = 0;
    let counterQueued = false;
    // At most one refresh at a time and one per REFRESH_MS, the last change always shown: a run
    // writing hundreds of events a second neither starves the page (a debounce that never fires)
    // nor rebuilds it per event.
    let refreshing = false;
    let wanted = false;
    let lastRefresh = 0;
    const REFRESH_MS = 1000;
    const pump = () => {
      if (refreshing || !wanted || signal.aborted) return;
      const wait = lastRefresh + REFRESH_MS - performance.now();
      if (wait > 0) {
        setTimeout(pump, wait);
        return;
      }
      wanted = false;
      refreshing = true;
      lastRefresh = performance.now();
      void refresh()
        .then(() => (selectedTask ? showTask(selectedTask) : undefined))
        .catch(() => {})
        .finally(() => {
          refreshing = false;
          pump();
        });
    };
    void followEvents(
      `/api/runs/${enc(runId)}/events`,
      (message) => {
        if (message.id !== undefined) {
          received++;
          // One DOM write per frame, however many events arrived in it.
          if (!counterQueued) {
            counterQueued = true;
            requestAnimationFrame(() => {
              counterQueued = false;
              liveCount.textContent = String(received);
            });
          }
        }
        if (
          message.event === 'reputation-update' ||
          message.event === 'vote' ||
          message.event === 'status' ||
          message.event === 'end'
        ) {
          wanted = true;
          pump();
        }
        if (message.event === 'end') liveBadge.hidden = true;
      },
      signal,
    );
  }
}

async function replaysPage(): Promise<void> {
  const signal = pageAbort.signal;
  const { replays } = await getJson<{ replays: ReplayListing[] }>('/api/replays');
  setPage(
    signal,
    h('h1', {}, 'Replays'),
    replays.length === 0
      ? h(
          'p',
          {},
          'No replay outputs served. Start repute serve with --replay-dir DIR, where DIR holds folders written by repute replay --out.',
        )
      : h(
          'ul',
          { 'data-testid': 'replays' },
          ...replays.map((replay) =>
            h(
              'li',
              {},
              h('a', { href: `#/replays/${enc(replay.name)}` }, replay.name),
              ` · ${replay.dataset ?? 'dataset n/a'} · ${replay.methods.join(', ')}`,
            ),
          ),
        ),
  );
}

async function replayPage(name: string): Promise<void> {
  const signal = pageAbort.signal;
  const replay = await getJson<ReplayView>(`/api/replays/${enc(name)}`);
  const chartBox = h('div', { class: 'chart', 'data-testid': 'attack-chart' });
  const { attacks, methods } = replay.byAttack;
  setPage(
    signal,
    h('h1', {}, `Replay ${name}`),
    h('h2', {}, 'Accuracy per attack (mean over compositions and placements)'),
    chartBox,
    h(
      'table',
      { 'data-testid': 'attack-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'method'), ...attacks.map((attack) => h('th', { class: 'num' }, attack)))),
      h(
        'tbody',
        {},
        ...Object.entries(methods).map(([method, values]) =>
          h('tr', {}, h('td', {}, method), ...values.map((value) => h('td', { class: 'num' }, percent(value)))),
        ),
      ),
    ),
  );
  charts.push(attackChart(chartBox, attacks, methods));
}

async function teamsPage(): Promise<void> {
  const signal = pageAbort.signal;
  const { teams } = await getJson<{ teams: TeamSummary[] }>('/api/teams');
  const sections: Node[] = [];
  for (const team of teams) {
    const reputation = await getJson<TeamReputation>(`/api/teams/${enc(team.name)}/reputation`);
    sections.push(
      h('h2', {}, `Team ${team.name}`),
      h('p', { class: 'meta' }, `${team.agents.length} agents · ${team.runs} run(s)`),
    );
    for (const method of reputation.methods) {
      sections.push(
        h('h3', {}, `${method.name} (${method.model})`),
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'agent'),
              h('th', { class: 'num' }, 'score'),
              h('th', { class: 'num' }, 'evidence'),
              h('th', {}, 'why'),
            ),
          ),
          h(
            'tbody',
            {},
            ...method.agents.map((agent) =>
              h(
                'tr',
                {},
                h('td', {}, agent.agentId),
                h('td', { class: 'num' }, fixed(agent.score)),
                h('td', { class: 'num' }, agent.evidenceCount),
                h('td', {}, agent.summary),
              ),
            ),
          ),
        ),
      );
    }
  }
  setPage(signal, h('h1', {}, 'Teams'), ...(sections.length ? sections : [h('p', {}, 'No teams yet.')]));
}

async function route(): Promise<void> {
  pageAbort.abort();
  pageAbort = new AbortController();
  const signal = pageAbort.signal;
  liveBadge.hidden = true;
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path = '/', search = ''] = hash.split('?');
  const query = new URLSearchParams(search);
  try {
    // Inside the try: a hand-edited link with a broken escape (`%E0%A4%A`) throws URIError.
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'runs' && parts[1]) await runPage(parts[1], query);
    else if (parts[0] === 'replays' && parts[1]) await replayPage(parts[1]);
    else if (parts[0] === 'replays') await replaysPage();
    else if (parts[0] === 'teams') await teamsPage();
    else await runsPage();
  } catch (error) {
    // A page the user has left says nothing: neither its late view nor its late error.
    if (error instanceof StalePage || signal.aborted) return;
    if (error instanceof UnauthorizedError) tokenForm(signal, error.refused);
    else setPage(signal, h('h1', {}, 'Error'), h('p', { class: 'error' }, (error as Error).message));
  }
}

window.addEventListener('hashchange', () => void route());
void route();
