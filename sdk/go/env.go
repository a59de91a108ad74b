package k32

import "unsafe"

// Getenv returns the value of the pod's environment variable key, or "" when
// it is not set. The environment is the container's env from the pod spec
// plus the variables the node injects for Services (ECHO_SERVICE_HOST, …).
// os.Getenv sees the same variables through WASI.
func Getenv(key string) string {
	v, _ := LookupEnv(key)
	return v
}

// LookupEnv returns the value of the environment variable key and whether it
// is set, so an empty value can be told from a missing one.
func LookupEnv(key string) (string, bool) {
	v, err := getString(func(out unsafe.Pointer, cap uint32) int32 {
		return k32EnvGet(stringPtr(key), uint32(len(key)), out, cap)
	}, 64)
	if err != nil {
		return "", false
	}
	return v, true
}
