module github.com/kube32/kube32/sdk/go

go 1.24
