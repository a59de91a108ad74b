package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// nginx is a running nginx child process.
type nginx struct {
	cmd *exec.Cmd
	url string
	dir string
}

// nginxConf serves root on 127.0.0.1:port in one process, with every path
// nginx writes kept in dir and gzip_static on, so that a request accepting
// gzip gets <file>.gz as kube32 does.
const nginxConf = `daemon off;
master_process off;
error_log {{dir}}/error.log;
pid {{dir}}/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path {{dir}}/body;
    proxy_temp_path {{dir}}/proxy;
    fastcgi_temp_path {{dir}}/fastcgi;
    uwsgi_temp_path {{dir}}/uwsgi;
    scgi_temp_path {{dir}}/scgi;
    types { text/javascript js; text/html html; text/css css; }
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:{{port}};
        root {{root}};
        gzip_static on;
        location / { add_header Cache-Control "public, max-age=3600"; }
    }
}
`

// startNginx runs nginx from path with its files in dir, serving root, and
// waits until it accepts connections.
func startNginx(path, dir, root string) (*nginx, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	conf := strings.NewReplacer("{{dir}}", dir, "{{root}}", root, "{{port}}", fmt.Sprint(port)).Replace(nginxConf)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	errLog := filepath.Join(dir, "error.log")
	// -e: the log nginx writes before it reads the configuration.
	cmd := exec.Command(path, "-p", dir, "-e", errLog, "-c", confPath)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("nginx: %w", err)
	}
	n := &nginx{cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d", port), dir: dir}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(errLog)
			return nil, fmt.Errorf("nginx exited: %v\n%s", err, log)
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return n, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	n.stop()
	return nil, fmt.Errorf("nginx did not listen on 127.0.0.1:%d within 10s", port)
}

// stop ends the nginx process this program started.
func (n *nginx) stop() {
	if n.cmd.Process != nil {
		n.cmd.Process.Kill()
	}
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
