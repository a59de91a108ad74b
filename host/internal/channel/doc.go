// Package channel carries the cluster's channel messages: k32_publish from
// any pod reaches every subscriber of the topic on every node, that is the
// pods whose abi.AnnotationEventTopics annotation lists it (through their
// k32_event export) and the Ingress controller's Server-Sent Events streams.
//
// Each node has a Hub. The control plane's hub is the cluster's one
// sequencer: it fans every message out to its local subscribers and to the
// workers, which follow it over the API server (see Handler and Upstream).
// A worker's hub forwards its pods' publishes to the control plane and
// delivers only what comes back, so every node sees one order per topic.
// The wire format is a simulator choice, not part of the ABI
// (docs/channels.md, "Across nodes (a simulator choice)").
package channel
