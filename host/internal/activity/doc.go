// Package activity is the live record of what a cluster does that the API
// objects do not show: the requests the Ingress served, the k32_http_calls
// of every node's pods (NetworkPolicy denials with their reasons) and the
// channel messages. It keeps the latest events in a bounded ring and hands
// each new one to its subscribers (the web view's event stream,
// docs/ui.md). Publishing never blocks: a subscriber that falls behind
// loses events and counts them.
package activity
