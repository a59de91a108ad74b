package kubeletapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/kube32/kube32/abi"
)

// reviewTimeout bounds one review: past it the request is refused (503),
// never let through.
const reviewTimeout = 10 * time.Second

// reviewScheme holds the two review groups only: client-go's clientset
// would link every API group of Kubernetes into the binary.
var reviewScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := authenticationv1.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := authorizationv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// user is who a request comes from, as a TokenReview or a client
// certificate says.
type user struct {
	name, uid string
	groups    []string
	extra     map[string]authorizationv1.ExtraValue
}

// access is what a request asks of the node, as a SubjectAccessReview
// asks it: verb on nodes/<subresource> named after the node.
type access struct{ verb, subresource string }

// reviewer asks the cluster who a token is and what a user may do, within
// the node's own budget of reviews (abi.KubeletReviewQPS,
// abi.KubeletReviewBurst, abi.KubeletReviewsInFlight), and keeps the
// answers a while (abi.KubeletTokenReviewTTL, abi.KubeletAccessAllowedTTL,
// abi.KubeletDeniedTTL). Refused tokens are kept apart from authenticated
// ones, so that a flood of bogus tokens never pushes a good one out.
type reviewer struct {
	node         string
	authn, authz *rest.RESTClient
	inFlight     chan struct{} // a review holds one while it waits its answer
	accepted     *cache[*user]
	refused      *cache[struct{}]
	accesses     *cache[bool]
}

func newReviewer(node string, cfg *rest.Config) (*reviewer, error) {
	if cfg == nil {
		return nil, fmt.Errorf("kubelet API of node %s: no client of the cluster for its reviews (Config.Reviews): it would let no one in", node)
	}
	codecs := serializer.NewCodecFactory(reviewScheme)
	// One budget for both kinds of review, whatever the node's client of
	// the cluster has (client-go's default of 5 a second would let a few
	// bogus tokens hold up every good one).
	limiter := flowcontrol.NewTokenBucketRateLimiter(abi.KubeletReviewQPS, abi.KubeletReviewBurst)
	client := func(gv schema.GroupVersion) (*rest.RESTClient, error) {
		c := rest.CopyConfig(cfg)
		c.GroupVersion, c.APIPath = &gv, "/apis"
		c.RateLimiter = limiter
		c.NegotiatedSerializer = codecs.WithoutConversion()
		c.ContentType = runtime.ContentTypeJSON
		if c.UserAgent == "" {
			c.UserAgent = rest.DefaultKubernetesUserAgent()
		}
		return rest.RESTClientFor(c)
	}
	rv := &reviewer{node: node, inFlight: make(chan struct{}, abi.KubeletReviewsInFlight),
		accepted: newCache[*user](abi.KubeletReviewCacheMax), refused: newCache[struct{}](abi.KubeletReviewCacheMax),
		accesses: newCache[bool](abi.KubeletReviewCacheMax)}
	var err error
	if rv.authn, err = client(authenticationv1.SchemeGroupVersion); err != nil {
		return nil, fmt.Errorf("kubelet API of node %s: %w", node, err)
	}
	if rv.authz, err = client(authorizationv1.SchemeGroupVersion); err != nil {
		return nil, fmt.Errorf("kubelet API of node %s: %w", node, err)
	}
	return rv, nil
}

// kept returns the answer the node keeps of a bearer token, if any: its
// user, or nil for a refusal. It asks nothing.
func (rv *reviewer) kept(token string) (u *user, ok bool) {
	key := tokenKey(token)
	if u, ok := rv.accepted.get(key); ok {
		return u, true
	}
	_, ok = rv.refused.get(key)
	return nil, ok
}

// token returns the user of a bearer token, nil when the cluster does not
// know it; err when it could not be asked.
func (rv *reviewer) token(ctx context.Context, token string) (*user, error) {
	if u, ok := rv.kept(token); ok {
		return u, nil
	}
	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}
	result := &authenticationv1.TokenReview{}
	if err := rv.ask(ctx, rv.authn, "tokenreviews", review, result); err != nil {
		return nil, fmt.Errorf("TokenReview: %w", err)
	}
	var u *user
	if result.Status.Authenticated {
		info := result.Status.User
		u = &user{name: info.Username, uid: info.UID, groups: info.Groups, extra: map[string]authorizationv1.ExtraValue{}}
		for k, v := range info.Extra {
			u.extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	rv.remember(tokenKey(token), u)
	return u, nil
}

// remember keeps the answer of the token of key: its user, or nil for a
// refusal, each in its own cache.
func (rv *reviewer) remember(key string, u *user) {
	if u == nil {
		rv.refused.put(key, struct{}{}, abi.KubeletDeniedTTL)
		return
	}
	rv.accepted.put(key, u, abi.KubeletTokenReviewTTL)
}

// tokenKey is what the caches keep of a token: its hash, never the token.
func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ask posts one review within the node's budget of reviews in flight,
// waiting for room as long as the review may take (reviewTimeout).
func (rv *reviewer) ask(ctx context.Context, c *rest.RESTClient, resource string, review, result runtime.Object) error {
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	select {
	case rv.inFlight <- struct{}{}:
		defer func() { <-rv.inFlight }()
	case <-ctx.Done():
		return fmt.Errorf("no room among the node's %d reviews in flight: %w", cap(rv.inFlight), ctx.Err())
	}
	return c.Post().Resource(resource).Body(review).Do(ctx).Into(result)
}

// allowed asks whether u may do a on the node; err when it could not be
// asked.
func (rv *reviewer) allowed(ctx context.Context, u *user, a access) (bool, error) {
	key := accessKey(u, a)
	if ok, found := rv.accesses.get(key); found {
		return ok, nil
	}
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: u.name, UID: u.uid, Groups: u.groups, Extra: u.extra,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.verb, Version: "v1", Resource: "nodes", Subresource: a.subresource, Name: rv.node,
		},
	}}
	result := &authorizationv1.SubjectAccessReview{}
	if err := rv.ask(ctx, rv.authz, "subjectaccessreviews", review, result); err != nil {
		return false, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	ok := result.Status.Allowed && !result.Status.Denied
	ttl := abi.KubeletDeniedTTL
	if ok {
		ttl = abi.KubeletAccessAllowedTTL
	}
	rv.accesses.put(key, ok, ttl)
	return ok, nil
}

// accessKey names everything a SubjectAccessReview is asked about.
func accessKey(u *user, a access) string {
	var b strings.Builder
	for _, s := range []string{a.verb, a.subresource, u.name, u.uid} {
		fmt.Fprintf(&b, "%q,", s)
	}
	fmt.Fprintf(&b, "%q,", u.groups)
	keys := make([]string, 0, len(u.extra))
	for k := range u.extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%q=%q,", k, []string(u.extra[k]))
	}
	return b.String()
}
