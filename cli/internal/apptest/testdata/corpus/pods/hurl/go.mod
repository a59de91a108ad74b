module hurl

go 1.24

require github.com/kube32/kube32/sdk/go v0.0.0

// The SDK copy that kube32 build keeps current in the project's .kube32/.
replace github.com/kube32/kube32/sdk/go => ../../.kube32/sdk/go
