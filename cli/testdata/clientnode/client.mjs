// Drives kube32 serve's API as a tool author would, with the official
// JavaScript client: the kubeconfig serve wrote (argv[2]), its context
// (argv[3]), no TLS skipping. Prints one JSON object of what it saw; any
// failure exits non-zero with the client's error.
import * as k8s from '@kubernetes/client-node';

const [file, context] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(file);
kc.setCurrentContext(context);
if (kc.getCurrentCluster().skipTLSVerify) {
  throw new Error('the kubeconfig skips TLS verification');
}
const core = kc.makeApiClient(k8s.CoreV1Api);
const namespace = 'default';
const name = 'js-svc';
const seen = { events: [] };

// Watch the Services first, so that every change below is an event.
let deleted;
const gone = new Promise((resolve) => { deleted = resolve; });
const watch = new k8s.Watch(kc);
const watching = await watch.watch(`/api/v1/namespaces/${namespace}/services`, {},
  (type, obj) => {
    if (obj.metadata.name !== name) return;
    seen.events.push(`${type} ${obj.kind} ${obj.metadata.name}`);
    if (type === 'DELETED') deleted();
  },
  (err) => { if (err && err.name !== 'AbortError') { console.error('watch:', err); process.exit(1); } });

const pods = await core.listNamespacedPod({ namespace });
seen.pods = pods.items.map((p) => p.metadata.name).sort();

// A typed object, as the client's users write it: no kind, no apiVersion.
const created = await core.createNamespacedService({
  namespace,
  body: { metadata: { name }, spec: { selector: { app: 'echo' }, ports: [{ port: 80, targetPort: 7000 }] } },
});
seen.created = `${created.apiVersion} ${created.kind} ${created.metadata.name}`;

const patched = await core.patchNamespacedService(
  { name, namespace, body: [{ op: 'add', path: '/metadata/labels', value: { from: 'client-node' } }] },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
);
seen.patchedLabel = patched.metadata.labels.from;

seen.logs = await core.readNamespacedPodLog({ name: seen.pods[0], namespace });

await core.deleteNamespacedService({ name, namespace });
await gone;
watching.abort();
console.log(JSON.stringify(seen));
