package abi

// Version is the version of the ABI: the version of the WIT package that
// abi/k32.wit declares (kube32:app@Version). wit_test.go fails when the two
// differ, so a change of the WIT's version must change this constant too.
const Version = "0.1.0"
