module example.com/gopod

go 1.24

require github.com/kube32/kube32/sdk/go v0.0.0
