package interop

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Server is an HTTP server started for one run.
type Server struct {
	URL string
	cmd *exec.Cmd
}

// PortWord in a server's argv is replaced by the port it is to listen on,
// for servers that take it as a flag (the Go SDK's example takes -http
// ADDR); PORT is set in its environment too (server-everything's HTTP
// modes read that).
const PortWord = "{PORT}"

// StartServer launches argv with a free port (PORT in its environment,
// and in place of PortWord in argv), waits until the port accepts a
// connection, and returns the endpoint http://127.0.0.1:PORT/mcp.
func StartServer(argv []string, log string, limit time.Duration) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	f, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, PortWord, port)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.Stdout, cmd.Stderr = f, f
	// A group of its own, so Stop ends whatever the server started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr + "/mcp", cmd: cmd}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("%s exited before it listened on %s%s", filepath.Base(args[0]), addr, tail(log))
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("%s did not listen on %s within %s%s", filepath.Base(args[0]), addr, limit, tail(log))
		}
	}
}

// CPU is the CPU time the server's process tree has spent so far (user +
// system of the server and of every live descendant, plus what its waited
// children spent; from /proc, in the kernel's 10 ms ticks), or -1 where
// it cannot be read.
func (s *Server) CPU() time.Duration {
	root := s.cmd.Process.Pid
	stats := map[int]procStat{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			stats[pid] = st
		}
	}
	if _, ok := stats[root]; !ok {
		return -1
	}
	var ticks int64
	for pid, st := range stats {
		for p := pid; ; {
			if p == root {
				ticks += st.utime + st.stime
				if pid == root {
					ticks += st.cutime + st.cstime
				}
				break
			}
			parent, ok := stats[p]
			if !ok || parent.ppid == p || parent.ppid == 0 {
				break
			}
			p = parent.ppid
		}
	}
	// USER_HZ is 100 on every Linux ABI that has /proc.
	return time.Duration(ticks) * 10 * time.Millisecond
}

type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

// readStat reads the fields of /proc/PID/stat a CPU sum needs.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	return parseStat(b)
}

// parseStat reads a /proc/PID/stat line. The command name, field 2, is in
// parentheses and may hold spaces: the fields are counted from after its
// closing one (ppid is field 4 of the line, 2 here; utime, stime, cutime,
// cstime fields 14 to 17, 12 to 15 here).
func parseStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return procStat{}, false
	}
	var v [5]int64
	for j, k := range []int{1, 11, 12, 13, 14} {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return procStat{}, false
		}
		v[j] = n
	}
	return procStat{ppid: int(v[0]), utime: v[1], stime: v[2], cutime: v[3], cstime: v[4]}, true
}

// Stop kills the server's process group.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // it may have exited already
	}
}
