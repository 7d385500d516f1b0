// anchor-grpc: the kubelet's gRPC probe method under the same worker loop as the
// kubelet-probe-method anchor (../shared/anchors), plus a loopback gRPC health server to
// probe. Built in GOPATH mode against Debian's packaged gRPC (golang-google-grpc-dev), since
// the Go module proxy is not reachable: see bench/README.md.
//
// Re-created from documented behaviour (kubelet pkg/probe/grpc): per probe, a new client
// connection dialled with a blocking dial, plaintext credentials, the "kube-probe/<version>"
// user agent and a dialer that sets SO_LINGER {1, 1 s}; then one grpc.health.v1 Check with the
// service name, all within the probe timeout; the connection is closed after every probe.
// SERVING is success, anything else a failure.
//
//	anchor-grpc -serve 127.0.0.1:23082 -max-lifetime 30m
//	anchor-grpc -target 127.0.0.1:23082 -n 1000 -period 1s -duration 20s -timeout 1s
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
)

func probeDialer() *net.Dialer {
	return &net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) {
			_ = syscall.SetsockoptLinger(int(fd), syscall.SOL_SOCKET, syscall.SO_LINGER, &syscall.Linger{Onoff: 1, Linger: 1})
		})
	}}
}

func grpcProbe(addr, service string, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	dialer := probeDialer()
	conn, err := grpc.DialContext(ctx, addr,
		grpc.WithUserAgent("kube-probe/1.30"),
		grpc.WithBlock(),
		grpc.WithInsecure(),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) {
			return dialer.DialContext(ctx, "tcp", a)
		}),
	)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(metadata.NewOutgoingContext(ctx, make(metadata.MD)), &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return false, err
	}
	return resp.GetStatus() == healthpb.HealthCheckResponse_SERVING, nil
}

func serve(addr string, maxLifetime time.Duration) {
	if !strings.HasPrefix(addr, "127.") {
		fmt.Fprintln(os.Stderr, "refusing non-loopback address")
		os.Exit(2)
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := grpc.NewServer()
	healthpb.RegisterHealthServer(s, health.NewServer()) // "" is SERVING
	time.AfterFunc(maxLifetime, func() { os.Exit(0) })
	_ = s.Serve(lis)
}

func rusage() (userS, sysS float64, maxRSSKB int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6, float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6, ru.Maxrss
}

// pct is the nearest-rank percentile of a sorted slice (the drivers' shared definition).
func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

type workerStats struct {
	latMs, lagMs []float64
	ok, bad      int64
	lastErr      string
}

func main() {
	serveAddr := flag.String("serve", "", "run the gRPC health server on this loopback address instead of the driver")
	maxLifetime := flag.Duration("max-lifetime", 30*time.Minute, "server: exit after this long")
	kind := flag.String("kind", "grpc", "grpc (the only kind)")
	target := flag.String("target", "127.0.0.1:23082", "host:port of the health server")
	service := flag.String("service", "", "the Check request's service name")
	n := flag.Int("n", 1000, "number of concurrent probe workers")
	period := flag.Duration("period", time.Second, "probe period per worker")
	duration := flag.Duration("duration", 20*time.Second, "load duration")
	timeout := flag.Duration("timeout", time.Second, "per-probe timeout")
	seed := flag.Int64("seed", 0, "random seed for initial offsets (0 = time based)")
	flag.Parse()
	if *serveAddr != "" {
		serve(*serveAddr, *maxLifetime)
		return
	}
	if *kind != "grpc" || !strings.HasPrefix(*target, "127.") {
		fmt.Fprintln(os.Stderr, "only -kind grpc against a loopback target")
		os.Exit(2)
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano()
	}
	rng := rand.New(rand.NewSource(*seed))
	u0, s0, _ := rusage()
	benchStart := time.Now()
	stopCh := make(chan struct{})
	var wg sync.WaitGroup
	stats := make([]*workerStats, *n)
	for i := range stats {
		ws := &workerStats{}
		stats[i] = ws
		off := time.Duration(rng.Float64() * float64(*period))
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := func(intended time.Time) {
				start := time.Now()
				ws.lagMs = append(ws.lagMs, float64(start.Sub(intended))/1e6)
				ok, err := grpcProbe(*target, *service, *timeout)
				ws.latMs = append(ws.latMs, float64(time.Since(start))/1e6)
				if ok {
					ws.ok++
				} else {
					ws.bad++
					if err != nil {
						ws.lastErr = err.Error()
					}
				}
			}
			// kubelet worker.run(): random initial sleep, then a ticker whose late ticks are dropped.
			wstart := time.Now()
			time.Sleep(off)
			select {
			case <-stopCh:
				return
			default:
			}
			t0 := time.Now()
			ticker := time.NewTicker(*period)
			defer ticker.Stop()
			one(wstart.Add(off))
			for {
				select {
				case <-stopCh:
					return
				case tv := <-ticker.C:
					k := tv.Sub(t0) / *period
					one(t0.Add(k * *period))
				}
			}
		}()
	}
	time.Sleep(time.Until(benchStart.Add(*duration)))
	close(stopCh)
	wg.Wait()
	u1, s1, maxrss := rusage()
	var lat, lag []float64
	var ok, bad int64
	lastErr := ""
	for _, ws := range stats {
		lat = append(lat, ws.latMs...)
		lag = append(lag, ws.lagMs...)
		ok += ws.ok
		bad += ws.bad
		if ws.lastErr != "" {
			lastErr = ws.lastErr
		}
	}
	sort.Float64s(lat)
	sort.Float64s(lag)
	completed := ok + bad
	cpu := (u1 - u0) + (s1 - s0)
	wallS := duration.Seconds()
	res := map[string]interface{}{
		"driver": "go", "mode": "load", "kind": "grpc", "n": *n, "period_s": period.Seconds(), "duration_s": round3(wallS),
		"probes_completed": completed, "probes_expected": math.Round(float64(*n) * wallS / period.Seconds()),
		"probes_per_s": round3(float64(completed) / wallS), "success": ok, "failure": bad,
		"latency_p50_ms": round3(pct(lat, 0.5)), "latency_p99_ms": round3(pct(lat, 0.99)),
		"lag_p50_ms": round3(pct(lag, 0.5)), "lag_p99_ms": round3(pct(lag, 0.99)), "lag_max_ms": round3(pct(lag, 1)),
		"cpu_user_s": round3(u1 - u0), "cpu_sys_s": round3(s1 - s0), "cpu_s": round3(cpu), "children_cpu_s": 0.0,
		"peak_rss_mb": round3(float64(maxrss) / 1024), "cpu_us_per_probe": round3(cpu * 1e6 / math.Max(1, float64(completed))),
		"extra": map[string]interface{}{"go": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0), "last_error": lastErr},
	}
	b, _ := json.Marshal(res)
	fmt.Printf("probes_completed=%v failure=%v cpu_us_per_probe=%v lag_p99_ms=%v peak_rss_mb=%v\n", completed, bad, res["cpu_us_per_probe"], res["lag_p99_ms"], res["peak_rss_mb"])
	fmt.Printf("RESULT %s\n", b)
}
