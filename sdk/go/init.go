package k32

// initFuncs are the functions OnInit registered, in order.
var initFuncs []func() error

// OnInit registers f to run once when the pod starts, after every package
// init function and before the first request or event. An error from f fails
// the container's start (and is logged), so the pod's restartPolicy decides
// what follows. Call it from an init function.
func OnInit(f func() error) {
	initFuncs = append(initFuncs, f)
}

// runInit runs the OnInit functions; its result is that of k32_init: 0 when
// all succeeded.
func runInit() int32 {
	for _, f := range initFuncs {
		var err error
		if !protect("in OnInit function", func() { err = f() }) {
			return callbackFailed
		}
		if err != nil {
			Log(LevelError, "k32: OnInit: "+err.Error())
			if e, ok := err.(Errno); ok {
				return int32(e)
			}
			return callbackFailed
		}
	}
	return 0
}
