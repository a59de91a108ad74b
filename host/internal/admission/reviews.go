package admission

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
)

// The self-subject reviews, answered as a single-user cluster does
// (docs/kubectl.md): whoever got past the token check (or anyone, when the
// cluster has no token) is the cluster's one user, who may do everything.
// So `kubectl auth can-i` says yes and `kubectl auth whoami` names that
// user. Each review kind's strategy answers with one of these (Answer).

// userName and userGroups are who the API server says its one user is.
const userName = "kube32-admin"

var userGroups = []string{"system:masters", "system:authenticated"}

func answerSelfSubjectReview(r *authenticationv1.SelfSubjectReview) {
	r.Status.UserInfo = authenticationv1.UserInfo{Username: userName, Groups: userGroups}
}

func answerAccessReview(r *authorizationv1.SelfSubjectAccessReview) {
	r.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true,
		Reason: "kube32 has one user, who may do everything"}
}

func answerRulesReview(r *authorizationv1.SelfSubjectRulesReview) {
	r.Status = authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    []authorizationv1.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		NonResourceRules: []authorizationv1.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}
}
