package abi

// WASIModule is the import module of WASI preview 1.
const WASIModule = "wasi_snapshot_preview1"

// WASISubset lists the WASI preview 1 functions a node provides. Functions
// with real behaviour come first; the fd_* and path_* functions answer as a
// process with no preopened directories would ("no such file"), because a pod
// has no filesystem (and no sockets).
var WASISubset = []string{
	"fd_write", "clock_time_get", "clock_res_get", "random_get",
	"environ_get", "environ_sizes_get", "args_get", "args_sizes_get",
	"proc_exit", "sched_yield", "poll_oneoff",

	"fd_advise", "fd_allocate", "fd_close", "fd_datasync", "fd_fdstat_get",
	"fd_fdstat_set_flags", "fd_fdstat_set_rights", "fd_filestat_get",
	"fd_filestat_set_size", "fd_filestat_set_times", "fd_pread", "fd_prestat_get",
	"fd_prestat_dir_name", "fd_pwrite", "fd_read", "fd_readdir", "fd_renumber",
	"fd_seek", "fd_sync", "fd_tell",
	"path_create_directory", "path_filestat_get", "path_filestat_set_times",
	"path_link", "path_open", "path_readlink", "path_remove_directory",
	"path_rename", "path_symlink", "path_unlink_file",
	// Sockets are file descriptors too, and a pod has none: Go's net package
	// links these in even when a pod never opens a socket.
	"sock_accept", "sock_recv", "sock_send", "sock_shutdown",
}

// InWASISubset reports whether a node provides the WASI function name.
func InWASISubset(name string) bool {
	for _, n := range WASISubset {
		if n == name {
			return true
		}
	}
	return false
}

// WASIInterfaces are the WASI 0.2 interfaces that the WASI preview 1
// adapter of a component (wit-component's wasi_snapshot_preview1 adapter)
// imports to implement WASI preview 1. A node runs the component's own core
// module with WASISubset instead, so the build accepts these imports in a
// component that carries the adapter (docs/components.md).
var WASIInterfaces = []string{
	"wasi:cli/environment", "wasi:cli/exit", "wasi:cli/stdin", "wasi:cli/stdout", "wasi:cli/stderr",
	"wasi:cli/terminal-input", "wasi:cli/terminal-output",
	"wasi:cli/terminal-stdin", "wasi:cli/terminal-stdout", "wasi:cli/terminal-stderr",
	"wasi:clocks/wall-clock", "wasi:clocks/monotonic-clock",
	"wasi:filesystem/types", "wasi:filesystem/preopens",
	"wasi:io/error", "wasi:io/poll", "wasi:io/streams",
	"wasi:random/random",
	"wasi:sockets/tcp", "wasi:sockets/network",
}

// InWASIInterfaces reports whether iface (without its version) is one of
// WASIInterfaces.
func InWASIInterfaces(iface string) bool {
	for _, n := range WASIInterfaces {
		if n == iface {
			return true
		}
	}
	return false
}
