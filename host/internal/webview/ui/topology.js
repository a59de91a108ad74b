// The picture at the top of the web view (docs/ui.md): Ingress routes →
// Services (and StaticBundles) → pods, grouped by the node they run on, and
// the hosts outside the cluster that pods called. The edges come from the
// objects; the activity stream makes them live: a request pulses its route's
// edges, a call its caller's edge, and a call NetworkPolicy denied (or one
// that failed) draws its edge red for a few seconds.

const NS = 'http://www.w3.org/2000/svg';
const pulseMs = 1500; // how long an edge stays lit after a request or call
const troubleMs = 6000; // how long a denied or failed one stays red
// Events older than this when they arrive are history a (re)connect
// replays from the stream's window: they do not light anything. (The
// event's time is the cluster's clock, the browser's usually.)
const freshMs = 5000;

const boxH = 22;
const gap = 6;
const groupHead = 18;
const groupPad = 6;
const top = 22; // the column titles
const charW = 7; // a generous width of one character at 12px, to cut labels

// state holds, per edge, what the events did to it: pulses and denials
// counted (data-pulses, data-denied) and until when it is lit or red.
const state = new Map();
let moving = []; // edges whose dot is yet to travel
let drawn = ''; // the signature of the picture now in the page
let edges = new Map(); // edge key → its <path>
let dots = null; // the layer the dots travel on
let routeTargets = new Map(); // route key → the box its backend is

export const edgeKey = (from, to) => `${from} → ${to}`;

// callTarget is the box a call went to, read from its URL as docs/calls.md
// ("Where a URL goes") says: a Service of the cluster when the name is one,
// else the host outside ("out:host[:port]").
export function callTarget(call, services) {
  let u;
  try {
    u = new URL(String(call.target).split(' (')[0]);
  } catch {
    return null;
  }
  const ns = String(call.from).split('/')[0];
  if (u.protocol === 'http:') {
    const parts = u.hostname.toLowerCase().split('.');
    let svc = null;
    if (parts.length === 1) svc = `${ns}/${parts[0]}`;
    else if (parts.length === 2) svc = `${parts[1]}/${parts[0]}`;
    else if (parts[2] === 'svc' && (parts.length === 3 || parts.slice(3).join('.') === 'cluster.local')) svc = `${parts[1]}/${parts[0]}`;
    if (svc && services.has(svc)) return `svc:${svc}`;
  }
  return `out:${u.host}`;
}

// model lays out what to draw: the columns of boxes and the edges between
// them. routes are app.js's routes(), calls the calls kept, podLevel the
// trouble level of a pod ('', 'warn' or 'bad'). It also keeps each route's
// backend, by which noteRequest finds the edges a request went along.
export function model({ objects, routes, calls, podLevel, nodeReady }) {
  const services = objects.services;
  const boxes = new Map();
  const edgeList = [];
  const addEdge = (from, to, kind) => {
    if (boxes.has(from) && boxes.has(to) && !edgeList.some((e) => e.from === from && e.to === to)) edgeList.push({ from, to, kind });
  };
  const box = (id, col, label, title, level = '', group = '') => boxes.set(id, { id, col, label, title, level, group });

  // Services in the order the routes name them, then the others.
  const svcOrder = [];
  for (const rt of routes) if (rt.target && !svcOrder.includes(rt.target)) svcOrder.push(rt.target);
  for (const k of [...services.keys()].sort()) if (!svcOrder.includes(`svc:${k}`)) svcOrder.push(`svc:${k}`);
  for (const t of svcOrder) {
    const [kind, key] = [t.slice(0, t.indexOf(':')), t.slice(t.indexOf(':') + 1)];
    const [ns, name] = key.split('/');
    const label = ns === 'default' ? name : key;
    if (kind === 'svc' && services.has(key)) box(t, 1, label, `Service ${key}`);
    else if (kind === 'bundle' && objects.staticbundles.has(key)) box(t, 1, `${label} (files)`, `StaticBundle ${key}`);
  }
  routeTargets = new Map();
  for (const rt of routes) {
    box(`route:${rt.key}`, 0, `${rt.host || '*'}${rt.path}`, `${rt.key} → ${rt.backend}`, rt.ok ? '' : 'bad');
    if (rt.target) routeTargets.set(rt.key, rt.target);
  }

  // Pods by node, each node's pods in the order of the Services they serve.
  const svcIndex = (p) => {
    const i = svcOrder.findIndex((t) => t.startsWith('svc:') && selects(services.get(t.slice(4)), p));
    return i < 0 ? svcOrder.length : i;
  };
  const pods = [...objects.pods.values()].sort((a, b) => svcIndex(a) - svcIndex(b) || podID(a).localeCompare(podID(b)));
  const nodeNames = [...objects.nodes.keys()].sort();
  for (const p of pods) if (!nodeNames.includes(p.spec.nodeName || '')) nodeNames.push(p.spec.nodeName || '');
  const groups = nodeNames.map((n) => ({ name: n, level: n && nodeReady(n) ? '' : n ? 'bad' : 'warn', pods: pods.filter((p) => (p.spec.nodeName || '') === n) }));
  for (const g of groups) {
    for (const p of g.pods) {
      const key = podID(p);
      box(`pod:${key}`, 2, p.metadata.namespace === 'default' ? p.metadata.name : key, `Pod ${key} on ${g.name || 'no node yet'}`, podLevel(p), g.name);
    }
  }
  // Service → pod: the pods its selector picks (ready or not), and the ones
  // its Endpoints name (a Service without a selector).
  for (const [key, svc] of services) {
    for (const p of pods) if (selects(svc, p)) addEdge(`svc:${key}`, `pod:${podID(p)}`, podLevel(p) ? 'endpoint notready' : 'endpoint');
    const ep = objects.endpoints.get(key);
    for (const a of (ep?.subsets || []).flatMap((s) => s.addresses || [])) {
      if (a.targetRef?.kind === 'Pod') addEdge(`svc:${key}`, `pod:${a.targetRef.namespace || key.split('/')[0]}/${a.targetRef.name}`, 'endpoint');
    }
  }
  for (const rt of routes) if (rt.target) addEdge(`route:${rt.key}`, rt.target, 'route');

  // Calls: caller → Service, or caller → the host outside it called.
  for (const c of calls) {
    const to = callTarget(c, services);
    if (!to) continue;
    if (to.startsWith('out:') && !boxes.has(to)) box(to, 3, to.slice(4), `outside the cluster: ${to.slice(4)}`);
    addEdge(`pod:${c.from}`, to, to.startsWith('svc:') ? 'call back' : 'call');
  }
  return { boxes: [...boxes.values()], edges: edgeList, groups };
}

const podID = (p) => `${p.metadata.namespace}/${p.metadata.name}`;

function selects(svc, p) {
  const sel = svc?.spec?.selector;
  if (!sel || !Object.keys(sel).length || svc.metadata.namespace !== p.metadata.namespace) return false;
  const labels = p.metadata.labels || {};
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
}

// draw puts m into svg, rebuilding the picture only when it changed (so
// that a pulse runs on undisturbed), then shows the edges' state.
export function draw(svg, m) {
  const width = Math.max(600, Math.floor(svg.parentElement.clientWidth - 24));
  const sig = JSON.stringify([width, m]);
  if (sig !== drawn) {
    drawn = sig;
    build(svg, m, width);
  }
  apply();
}

function build(svg, m, width) {
  const cols = m.boxes.some((b) => b.col === 3) ? 4 : 3;
  const colW = width / cols;
  const boxW = Math.min(colW - 56, 260);
  const pos = new Map();
  const heights = [0, 0, 0, 0];
  // Column heights first, to centre the columns on the tallest.
  for (const b of m.boxes) if (b.col !== 2) heights[b.col] += boxH + gap;
  for (const g of m.groups) heights[2] += groupHead + Math.max(1, g.pods.length) * (boxH + gap) + groupPad + gap;
  const height = top + Math.max(boxH, ...heights) + 4;
  const x0 = (col) => col * colW + 4;
  const y = heights.map((h) => top + (height - top - h) / 2);

  let out = '';
  const titles = ['Routes', 'Services', 'Pods by node', 'Outside the cluster'];
  for (let c = 0; c < cols; c++) out += `<text class="col-title" x="${x0(c)}" y="14">${titles[c]}</text>`;
  const boxSVG = (b, x, yy, w) => {
    pos.set(b.id, { x, y: yy, w });
    return `<g class="box ${b.level}" data-id="${esc(b.id)}" transform="translate(${x},${yy})"><title>${esc(b.title)}</title>` +
      `<rect width="${w}" height="${boxH}" rx="4"></rect><text x="6" y="15">${esc(cut(b.label, w))}</text></g>`;
  };
  for (const b of m.boxes) {
    if (b.col === 2) continue;
    out += boxSVG(b, x0(b.col), y[b.col], boxW);
    y[b.col] += boxH + gap;
  }
  for (const g of m.groups) {
    const inner = g.pods.length;
    const h = groupHead + Math.max(1, inner) * (boxH + gap) + groupPad - gap;
    out += `<g class="node-group ${g.level}" data-node="${esc(g.name)}"><rect x="${x0(2)}" y="${y[2]}" width="${boxW}" height="${h}" rx="6"></rect>` +
      `<text class="node-name" x="${x0(2) + groupPad}" y="${y[2] + 13}">${esc(cut(g.name || 'no node yet', boxW))}<title>Node ${esc(g.name)}</title></text>`;
    let yy = y[2] + groupHead;
    for (const p of m.boxes.filter((b) => b.col === 2 && b.group === g.name)) {
      out += boxSVG(p, x0(2) + groupPad, yy, boxW - 2 * groupPad);
      yy += boxH + gap;
    }
    if (!inner) out += `<text class="dim" x="${x0(2) + groupPad}" y="${yy + 15}">no pods</text>`;
    out += '</g>';
    y[2] += h + gap + gap;
  }

  let lines = '';
  for (const e of m.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    let d;
    if (e.kind === 'call back') {
      // A call from a pod back to a Service: out of the pod's left side and
      // into the Service's right side, bowed below the Service → pod edges.
      const [x1, y1, x2, y2] = [a.x, a.y + boxH / 2 + 4, b.x + b.w, b.y + boxH / 2 + 4];
      d = `M${x1},${y1} C${x1 - 40},${y1 + 30} ${x2 + 40},${y2 + 30} ${x2},${y2}`;
    } else {
      const [x1, y1, x2, y2] = [a.x + a.w, a.y + boxH / 2, b.x, b.y + boxH / 2];
      const dx = (x2 - x1) / 2;
      d = `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
    }
    lines += `<path class="edge ${e.kind}" d="${d}" data-from="${esc(e.from)}" data-to="${esc(e.to)}"></path>`;
  }
  if (!m.boxes.length) out += `<text class="dim" x="4" y="${top + 15}">no routes, Services or pods yet</text>`;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  // Scaled to the section's width: a scroll bar that appears after the
  // picture was drawn narrows it a little rather than overflowing it.
  svg.setAttribute('width', '100%');
  svg.innerHTML = `<g class="edges">${lines}</g>${out}<g class="dots"></g>`;
  dots = svg.querySelector('.dots');
  edges = new Map([...svg.querySelectorAll('path.edge')].map((p) => [edgeKey(p.dataset.from, p.dataset.to), p]));
}

const cut = (s, w) => {
  const n = Math.max(4, Math.floor((w - 12) / charW));
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
};
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// noteRequest lights the edges a request went along: its route to the
// route's backend, and the backend to the pod that answered. A 5xx answer
// draws them red.
export function noteRequest(e) {
  if (!fresh(e) || !e.route) return;
  const target = routeTargets.get(e.route);
  if (!target) return;
  const trouble = e.status >= 500 ? 'failed' : '';
  mark(edgeKey(`route:${e.route}`, target), trouble);
  if (e.pod) mark(edgeKey(target, `pod:${e.pod}`), trouble);
}

// noteCall lights the edge of a pod's call: red when NetworkPolicy denied
// it ('denied') or it failed (a K32_ERR_* code or a 5xx answer).
export function noteCall(e, services) {
  if (!fresh(e)) return;
  const to = callTarget(e, services);
  if (!to) return;
  const failed = /^K32_ERR_/.test(e.result) || /^5/.test(e.result);
  mark(edgeKey(`pod:${e.from}`, to), e.denied ? 'denied' : failed ? 'failed' : '');
}

const fresh = (e) => Date.now() - new Date(e.time).getTime() < freshMs;

function mark(key, trouble) {
  const now = Date.now();
  const s = state.get(key) || { pulses: 0, denied: 0, pulseUntil: 0, troubleUntil: 0, trouble: '' };
  s.pulses++;
  s.pulseUntil = now + pulseMs;
  if (trouble) {
    s.trouble = trouble;
    s.troubleUntil = now + troubleMs;
    if (trouble === 'denied') s.denied++;
  }
  state.set(key, s);
  moving.push(key);
  // Take the light (and the red) off again when they are due.
  setTimeout(apply, pulseMs + 20);
  if (trouble) setTimeout(apply, troubleMs + 20);
}

// apply sets the edges' classes and counters from their state, and starts
// the dots of the events since the last time.
function apply() {
  const now = Date.now();
  for (const [key, el] of edges) {
    const s = state.get(key);
    if (!s) continue;
    const red = now < s.troubleUntil ? s.trouble : '';
    el.classList.toggle('pulse', now < s.pulseUntil);
    el.classList.toggle('denied', red === 'denied');
    el.classList.toggle('failed', red === 'failed');
    el.dataset.pulses = s.pulses;
    el.dataset.denied = s.denied;
    if (red) el.parentNode.append(el); // drawn over the others
  }
  for (const key of moving) {
    const el = edges.get(key);
    if (!el || !dots) continue;
    const s = state.get(key);
    const dot = document.createElementNS(NS, 'circle');
    dot.setAttribute('r', '4');
    dot.setAttribute('class', `dot ${now < s.troubleUntil ? 'bad' : ''}`);
    const motion = document.createElementNS(NS, 'animateMotion');
    motion.setAttribute('dur', '0.8s');
    motion.setAttribute('begin', 'indefinite');
    motion.setAttribute('fill', 'freeze');
    motion.setAttribute('path', el.getAttribute('d'));
    dot.append(motion);
    dots.append(dot);
    motion.beginElement();
    setTimeout(() => dot.remove(), 900);
  }
  moving = [];
}
