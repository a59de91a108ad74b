// The web view of a kube32 cluster (docs/ui.md): the API objects through
// list and watch, as kubectl sees them, live memory and board time from
// the Metrics API, and the activity stream of /ui/events for requests,
// calls and messages; topology.js draws them as a picture.

import * as topology from './topology.js';

const $ = (sel) => document.querySelector(sel);
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Errors of the page itself are counted in the header, where a test reads them.
const errors = [];
function pageError(msg) {
  errors.push(String(msg));
  const el = $('#errors');
  el.dataset.count = errors.length;
  el.textContent = `${errors.length} error(s): ${errors[errors.length - 1]}`;
}
window.addEventListener('error', (e) => pageError(e.message));
window.addEventListener('unhandledrejection', (e) => pageError(e.reason));

const resources = {
  nodes: '/api/v1/nodes',
  pods: '/api/v1/pods',
  services: '/api/v1/services',
  endpoints: '/api/v1/endpoints',
  ingresses: '/apis/networking.k8s.io/v1/ingresses',
  staticbundles: '/apis/kube32.io/v1/staticbundles',
  networkpolicies: '/apis/networking.k8s.io/v1/networkpolicies',
  events: '/api/v1/events',
};
// Endpoints are computed on read and cannot be watched: they are listed.
// A browser opens at most six HTTP/1.1 connections to the API port: four
// watches and the event stream hold five, the rest is listed every few
// seconds on the sixth, with the metrics and the log tail.
const watched = new Set(['nodes', 'pods', 'services', 'ingresses']);
const relistEvery = 5000;
const objects = Object.fromEntries(Object.keys(resources).map((k) => [k, new Map()]));
const usage = { pods: new Map(), nodes: new Map() };
const activity = { requests: [], calls: [], topics: new Map(), viewers: new Map(), dropped: 0 };
const keep = 200;
let selected = null; // {pod: "ns/name"} or {route: key}

const id = (o) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

// list then watch one resource, listing again whenever the watch ends.
async function follow(kind) {
  const path = resources[kind];
  for (;;) {
    try {
      const list = await (await checked(fetch(path))).json();
      objects[kind] = new Map(list.items.map((o) => [id(o), o]));
      changed();
      if (!watched.has(kind)) {
        await sleep(relistEvery);
        continue;
      }
      const r = await checked(fetch(`${path}?watch=true&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}`));
      await readLines(r.body, (line) => {
        const ev = JSON.parse(line);
        if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return;
        if (ev.type === 'DELETED') objects[kind].delete(id(ev.object));
        else objects[kind].set(id(ev.object), ev.object);
        changed();
      });
    } catch (e) {
      if (e.unauthorized) throw e;
      status(`watch of ${kind}: ${e.message}; retrying`);
    }
    await sleep(1000);
  }
}

async function checked(p) {
  const r = await p;
  if (r.status === 401) throw Object.assign(new Error('unauthorized'), { unauthorized: true });
  if (!r.ok) throw new Error(`${r.url}: ${r.status}`);
  return r;
}

async function readLines(body, each) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) each(line);
    }
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const status = (s) => { $('#status').textContent = s; };

// The Metrics API, every 5 s: live memory of pods and nodes, and the
// pods' board time.
async function pollMetrics() {
  for (;;) {
    try {
      for (const kind of ['pods', 'nodes']) {
        const r = await fetch(`/apis/metrics.k8s.io/v1beta1/${kind}`);
        if (!r.ok) continue;
        const list = await r.json();
        usage[kind] = new Map(list.items.map((m) => [id(m), m]));
      }
      changed();
    } catch (e) {
      status(`metrics: ${e.message}`);
    }
    await sleep(5000);
  }
}

function followActivity() {
  const es = new EventSource('/ui/events');
  es.addEventListener('open', () => status('live'));
  es.addEventListener('error', () => status('event stream lost; reconnecting'));
  let last = 0;
  es.addEventListener('activity', (m) => {
    const e = JSON.parse(m.data);
    if (e.seq <= last) return; // a reconnect replays what the stream holds
    last = e.seq;
    if (e.kind === 'request') {
      push(activity.requests, e);
      topology.noteRequest(e);
    } else if (e.kind === 'call') {
      push(activity.calls, e);
      topology.noteCall(e, objects.services);
    }
    else if (e.kind === 'message') {
      const t = activity.topics.get(e.topic) || { topic: e.topic, count: 0, last: [] };
      t.count++;
      t.last = [e, ...t.last].slice(0, 5);
      activity.topics.set(e.topic, t);
    } else if (e.kind === 'viewers') activity.viewers.set(e.stream, e);
    changed();
  });
  es.addEventListener('dropped', (m) => { activity.dropped = JSON.parse(m.data).dropped; changed(); });
}

function push(list, e) {
  list.unshift(e);
  if (list.length > keep) list.length = keep;
}

// Rendering, at most once per animation frame.
let pending = false;
function changed() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; render(); });
}

const bytes = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`);
function quantity(q) {
  if (!q) return 0;
  const m = /^([0-9.]+)([KMG]i|[kMG])?$/.exec(q);
  if (!m) return 0;
  const unit = { Ki: 1024, Mi: 1 << 20, Gi: 1 << 30, k: 1e3, M: 1e6, G: 1e9 }[m[2]] || 1;
  return parseFloat(m[1]) * unit;
}
// meter draws used against limit; the bar is red only when trouble says so.
// How full it is says nothing by itself: a one-page pod at its one-page
// limit is the normal case (docs/ui.md).
function meter(used, limit, trouble) {
  if (!used && !limit) return '<span class="dim">–</span>';
  if (!limit) return esc(bytes(used));
  const pct = Math.min(100, (100 * used) / limit);
  const t = trouble ? ' trouble' : '';
  return `<span class="bar${t}"><i style="width:${pct.toFixed(0)}%"></i></span> ${esc(bytes(used))} / ${esc(bytes(limit))}`;
}
// memoryTrouble: the pod failed for memory (its module needs more than its
// limit: MemoryLimitExceeded) or its container ended, now or last, because
// a memory.grow was refused at the limit (OOMKilled), as docs/serve.md says.
function memoryTrouble(p, cs) {
  if (p.status?.reason === 'MemoryLimitExceeded') return true;
  return [cs.state?.terminated, cs.lastState?.terminated].some((t) => t?.reason === 'OOMKilled' || t?.reason === 'MemoryLimitExceeded');
}
// table fills sel's table: head is [label, width] pairs, the widths of a
// fixed layout, so that a long cell is cut (cell gives it its title)
// rather than widening the page.
const table = (sel, head, rows) => {
  $(`${sel} table`).innerHTML = `<tr>${head.map(([h, w]) => `<th style="width:${w}">${h}</th>`).join('')}</tr>${rows.join('')}`;
};
// cell is one cut-to-fit cell whose title is its whole text.
const cell = (text, cls = '') => `<td${cls ? ` class="${cls}"` : ''} title="${esc(text)}">${esc(text)}</td>`;
// clamped is a cell whose text wraps to at most two lines.
const clamped = (text, cls = '') => `<td${cls ? ` class="${cls}"` : ''} title="${esc(text)}"><div class="clamp">${esc(text)}</div></td>`;
const cond = (o, type) => (o.status?.conditions || []).find((c) => c.type === type)?.status;

// podStatus is what the Pods table and the picture say of a pod, as
// kubectl's STATUS column does, and its level: 'bad' for trouble (failed,
// crash loops, a module that cannot run), 'warn' for a pod on its way
// (pending, not ready yet), '' for a pod running as it should.
function podStatus(p) {
  const cs = (p.status?.containerStatuses || [])[0] || {};
  const phase = p.status?.phase || 'Pending';
  const reason = cs.state?.waiting?.reason || cs.state?.terminated?.reason || p.status?.reason || '';
  const troubled = /BackOff|Err|Invalid|Failed|Exceeded|OOMKilled|Error/.test(reason);
  if (phase === 'Failed' || troubled) return { text: reason || phase, level: 'bad' };
  if (p.metadata.deletionTimestamp) return { text: 'Terminating', level: 'warn' };
  if (phase === 'Pending') return { text: reason || phase, level: 'warn' };
  if (phase === 'Running' && cond(p, 'Ready') !== 'True') return { text: 'Running, not ready', level: 'warn' };
  return { text: phase, level: phase === 'Running' ? '' : 'dim' };
}
// A container that serve --watch ended to swap in its rebuilt image ends
// as one asked to stop: Completed, with the kubelet's message (docs/serve.md).
const swapped = (lt) => lt.reason === 'Completed' && (lt.message || '').startsWith('image rebuilt');
const nodeReady = (name) => cond(objects.nodes.get(name) || {}, 'Ready') === 'True';
// boardTime is the board time of a pod's callbacks that its node gives on
// its PodMetrics (abi.AnnotationBoardTime, docs/kubectl.md): the board, the
// p50 and p99 of the recent callbacks, how many were slow (past serve
// --slow-callback); null without it.
const boardTimeAnnotation = 'kube32.io/board-time';
function boardTime(m) {
  const v = m?.metadata?.annotations?.[boardTimeAnnotation];
  if (!v) return null;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}
// millis writes a time in milliseconds with three significant digits.
const millis = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toPrecision(3));
// boardCell is the Pods table's board time: p50 / p99 in ms (the
// column's unit), and a pod with slow callbacks marked as trouble, their
// count first, where a cut cell keeps it.
function boardCell(bt) {
  if (!bt || !bt.callbacks) return `<td class="boardtime dim" title="${bt ? `no callback yet (${esc(bt.board)})` : ''}">–</td>`;
  const slow = bt.slow > 0;
  const text = `${slow ? `${bt.slow} slow · ` : ''}${millis(bt.p50Ms)} / ${millis(bt.p99Ms)}`;
  const title = `on ${bt.board}: p50 ${millis(bt.p50Ms)} ms, p99 ${millis(bt.p99Ms)} ms of the recent callbacks; ` +
    `${bt.callbacks} callbacks, ${bt.slow} over ${millis(bt.slowMs)} ms, ${millis(bt.totalMs)} ms in all`;
  return `<td class="boardtime${slow ? ' bad' : ''}" data-slow="${bt.slow}" title="${esc(title)}">${esc(text)}</td>`;
}
// A call's result is trouble when it is a K32_ERR_* code or a 5xx answer.
const callTrouble = (c) => c.denied || /^K32_ERR_|^5/.test(c.result);

function render() {
  const pods = [...objects.pods.values()];
  const rts = routes();
  topology.draw($('#topology svg'), topology.model({ objects, routes: rts, calls: activity.calls, podLevel: (p) => podStatus(p).level, nodeReady }));

  table('#nodes', [['Node', '34%'], ['Ready', '12%'], ['IP', '18%'], ['Pods', '8%'], ['Memory', '28%']], [...objects.nodes.values()].map((n) => {
    const ip = (n.status?.addresses || []).find((a) => a.type === 'InternalIP')?.address;
    const count = pods.filter((p) => p.spec.nodeName === n.metadata.name).length;
    const ready = cond(n, 'Ready');
    const mem = quantity(usage.nodes.get(n.metadata.name)?.usage?.memory);
    // A node past 85% of its board's budget has little room for the next pod.
    const nodeMemory = quantity(n.status?.allocatable?.memory);
    return `<tr data-node="${esc(n.metadata.name)}">${cell(n.metadata.name)}${cell(ready, ready === 'True' ? '' : 'bad')}` +
      `${cell(ip)}<td>${count}</td><td class="memory">${meter(mem, nodeMemory, mem > 0.85 * nodeMemory)}</td></tr>`;
  }));

  // Pods: Ready is in the status ("Running, not ready"), the last
  // terminated state next to the restarts that it explains: "updated" for
  // a rebuilt image swapped in, which is no crash; the board time of its
  // callbacks, red when some were slow.
  table('#pods', [['Pod', '17%'], ['Status', '10%'], ['Restarts', '10%'], ['Memory', '25%'], ['Board p50/p99 ms', '24%'], ['Node', '14%']], pods.map((p) => {
    const cs = (p.status?.containerStatuses || [])[0] || {};
    const lt = cs.lastState?.terminated;
    const restarts = `${cs.restartCount || 0}${lt ? ` (${swapped(lt) ? 'updated' : lt.reason || 'Terminated'})` : ''}`;
    const m = usage.pods.get(id(p));
    const used = (m?.containers || []).reduce((s, c) => s + quantity(c.usage?.memory), 0);
    const limit = quantity(p.spec.containers[0]?.resources?.limits?.memory);
    const st = podStatus(p);
    return `<tr data-pod="${esc(id(p))}">${cell(id(p))}${cell(st.text, st.level)}<td title="${esc(lt ? `last ended ${lt.reason || ''}, exit code ${lt.exitCode}${lt.message ? `: ${lt.message}` : ''}` : '')}">${esc(restarts)}</td>` +
      `<td class="memory">${meter(used, limit, memoryTrouble(p, cs))}</td>${boardCell(boardTime(m))}${cell(p.spec.nodeName)}</tr>`;
  }));

  const lastByRoute = new Map();
  for (const r of activity.requests) if (r.route && !lastByRoute.has(r.route)) lastByRoute.set(r.route, r);
  table('#routes', [['Route', '24%'], ['Backend', '26%'], ['Pods', '22%'], ['Last', '28%']], rts.map((rt) => {
    const last = lastByRoute.get(rt.key);
    return `<tr data-route="${esc(rt.key)}"><td title="${esc(`${rt.key} (${rt.pathType})`)}">${esc(`${rt.host || '*'}${rt.path}`)}</td>` +
      `${cell(rt.backend, rt.ok ? '' : 'bad')}${cell(rt.pods, rt.ok ? '' : 'bad')}` +
      `${last ? cell(`${last.status} ${last.pod || ''}`, last.status >= 500 ? 'bad' : '') : '<td></td>'}</tr>`;
  }));

  // Requests: the method, host and path are one request; the pod's node
  // is its tooltip (and the picture's).
  table('#requests', [['Time', '17%'], ['Request', '41%'], ['Status', '10%'], ['ms', '8%'], ['Pod', '24%']], activity.requests.slice(0, 60).map((r) =>
    `<tr data-request="${esc(r.path)}">${cell(time(r.time))}${cell(`${r.method} ${r.host || ''}${r.path}`)}` +
    `${cell(r.status, r.status >= 500 ? 'bad' : '')}<td>${r.durationMs ?? 0}</td>` +
    `<td title="${esc(r.node ? `${r.pod} on ${r.node}` : '')}">${esc(r.pod || (r.route ? 'static' : 'no route'))}</td></tr>`));

  // Calls: the caller's node is the picture's; the reason a NetworkPolicy
  // gave takes two lines, since it is what a user reads the row for.
  table('#calls', [['Time', '13%'], ['Caller', '22%'], ['Target', '20%'], ['Result', '17%'], ['NetworkPolicy / reason', '28%']], activity.calls.slice(0, 60).map((c) =>
    `<tr data-call="${esc(c.from)}" class="${c.denied ? 'denied' : ''}">${cell(time(c.time))}${cell(c.from)}${cell(c.target)}` +
    `${cell(c.result, callTrouble(c) ? 'bad' : '')}${clamped(`${c.denied ? 'denied: ' : ''}${c.reason || ''}`, c.denied ? 'bad' : '')}</tr>`));

  table('#topics', [['Topic', '24%'], ['Messages', '14%'], ['Last from', '22%'], ['Last message', '40%']], [...activity.topics.values()].map((t) =>
    `<tr data-topic="${esc(t.topic)}">${cell(t.topic)}<td>${t.count}</td>${cell(t.last[0].from)}` +
    `<td title="${t.last[0].size} bytes: ${esc(t.last[0].preview)}">${esc(t.last[0].preview)}</td></tr>`));
  table('#viewers', [['Stream', '40%'], ['Topics', '30%'], ['Viewers', '12%'], ['Since', '18%']], [...activity.viewers.values()].map((v) =>
    `<tr data-stream="${esc(v.stream)}">${cell(v.stream)}${cell(v.topic)}<td>${v.viewers}</td>${cell(time(v.time))}</tr>`));
  if (activity.dropped) status(`live (this view missed ${activity.dropped} events)`);
  renderDetail();
}

const time = (t) => new Date(t).toLocaleTimeString();

// The routing table as the controller builds it: each Ingress rule path
// and the Service or StaticBundle behind it, with the ready pods the
// Service's Endpoints list.
function routes() {
  const out = [];
  for (const ing of objects.ingresses.values()) {
    const cls = ing.spec.ingressClassName;
    if (cls && cls !== 'kube32') continue;
    const ns = ing.metadata.namespace;
    for (const rule of ing.spec.rules || []) {
      for (const p of rule.http?.paths || []) {
        const host = (rule.host || '').toLowerCase();
        const pathType = p.pathType || 'Prefix';
        const rt = { key: `${ns}/${ing.metadata.name} ${host}${p.path} ${pathType}`, host, path: p.path, pathType, ok: true };
        if (p.backend.service) {
          const name = p.backend.service.name;
          rt.backend = `Service ${name}:${p.backend.service.port?.number ?? p.backend.service.port?.name}`;
          rt.target = `svc:${ns}/${name}`;
          if (!objects.services.has(`${ns}/${name}`)) {
            rt.ok = false; rt.pods = 'no such Service';
          } else {
            const ep = objects.endpoints.get(`${ns}/${name}`);
            const ready = (ep?.subsets || []).flatMap((s) => s.addresses || []).map((a) => a.targetRef?.name || a.ip);
            rt.pods = ready.length ? ready.join(', ') : 'no ready pod';
            rt.ok = ready.length > 0;
          }
        } else if (p.backend.resource?.kind === 'StaticBundle') {
          const name = p.backend.resource.name;
          rt.backend = `StaticBundle ${name}`;
          rt.target = `bundle:${ns}/${name}`;
          rt.ok = objects.staticbundles.has(`${ns}/${name}`);
          rt.pods = rt.ok ? 'files' : 'no such StaticBundle';
        } else {
          rt.backend = 'unsupported'; rt.ok = false; rt.pods = '';
        }
        out.push(rt);
      }
    }
  }
  return out;
}

// The detail panel: a pod's manifest, Events and log, or a route's last
// requests and the pods that served them.
let logs = { pod: null, lines: [], abort: null };
function select(sel) {
  selected = sel;
  if (logs.abort) logs.abort.abort();
  logs = { pod: null, lines: [], abort: null };
  if (sel?.pod) followLog(sel.pod);
  $('#detail').hidden = !sel;
  renderDetail();
}

// followLog reads the pod's last 100 log lines every 2 s while its panel
// is open (a followed log would hold a connection of the six).
async function followLog(key) {
  const [ns, name] = key.split('/');
  const abort = new AbortController();
  logs = { pod: key, lines: [], abort };
  while (!abort.signal.aborted) {
    try {
      const r = await checked(fetch(`/api/v1/namespaces/${ns}/pods/${name}/log?tailLines=100`, { signal: abort.signal }));
      logs.lines = (await r.text()).split('\n').filter((l) => l);
    } catch (e) {
      if (e.name === 'AbortError') return;
      logs.lines = [`(log: ${e.message})`];
    }
    changed();
    await sleep(2000);
  }
}

function renderDetail() {
  const box = $('#detail div');
  if (!selected) { box.innerHTML = ''; return; }
  if (selected.pod) {
    const p = objects.pods.get(selected.pod);
    const events = [...objects.events.values()].filter((e) =>
      e.involvedObject?.kind === 'Pod' && `${e.involvedObject.namespace}/${e.involvedObject.name}` === selected.pod);
    box.innerHTML = `<h2>Pod ${esc(selected.pod)}</h2>` +
      `<h3>Events</h3><table><tr><th style="width:12%">Type</th><th style="width:22%">Reason</th><th>Message</th><th style="width:10%">Count</th></tr>${events.map((e) =>
        `<tr><td>${esc(e.type)}</td><td>${esc(e.reason)}</td><td>${esc(e.message)}</td><td>${e.count || 1}</td></tr>`).join('')}</table>` +
      `<h3>Log</h3><pre id="log">${esc(logs.lines.join('\n'))}</pre>` +
      `<h3>Manifest</h3><pre>${esc(p ? JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...p }, null, 2) : 'deleted')}</pre>`;
  } else {
    const served = activity.requests.filter((r) => r.route === selected.route).slice(0, 30);
    box.innerHTML = `<h2>Route ${esc(selected.route)}</h2><table><tr><th>Time</th><th>Path</th><th>Status</th><th>Pod</th><th>Node</th></tr>${served.map((r) =>
      `<tr><td>${esc(time(r.time))}</td><td>${esc(r.path)}</td><td>${r.status}</td><td>${esc(r.pod)}</td><td>${esc(r.node)}</td></tr>`).join('')}</table>`;
  }
}

// The picture is drawn for its section's width: drawn again when that changes.
new ResizeObserver(changed).observe($('#topology'));

document.addEventListener('click', (e) => {
  if (e.target.closest('#close')) return select(null);
  const row = e.target.closest('tr[data-pod], tr[data-route]');
  if (row?.dataset.pod) select({ pod: row.dataset.pod });
  else if (row?.dataset.route) select({ route: row.dataset.route });
});

async function start() {
  const session = await (await fetch('/ui/session')).json();
  if (!session.authorized) {
    const form = $('#login');
    form.hidden = false;
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const r = await fetch('/ui/login', { method: 'POST', body: new URLSearchParams(new FormData(form)) });
      if (r.ok) location.reload();
      else if (r.status === 429) $('#login-error').textContent = `too many wrong tokens: try again in ${r.headers.get('Retry-After')} s`;
      else $('#login-error').textContent = 'wrong token';
    }, { once: false });
    status('token needed');
    return;
  }
  $('#main').hidden = false;
  followActivity();
  pollMetrics();
  for (const kind of Object.keys(resources)) follow(kind).catch((e) => status(e.message));
}

start().catch((e) => pageError(e.message));
