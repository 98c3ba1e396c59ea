// SPDX-License-Identifier: MIT
// Go peer for the wasync benchmarks' many-threads workloads (GOMAXPROCS is
// the worker count):
//
//	mt_spawn N WORKERS     N goroutines each return their index on a channel
//	                       of their own, received in spawn order
//	mt_pingpong M WORKERS  two goroutines bounce a counter through two
//	                       channels of capacity 1, M times
//	mt_yield T K WORKERS   T goroutines each call runtime.Gosched K times
//	                       (n = T * K)
//
// Usage: peer-go mt_spawn [N] [WORKERS] | mt_pingpong [M] [WORKERS] | mt_yield [T] [K] [WORKERS]
// Prints: peer=go workload=W n=N wall_ms=F ns_per_op=F ops_per_s=F maxrss_kb=K workers=W cpu_ms=F
// (cpu_ms: the CPU time of every thread, the whole run)
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func arg(i int, def int64) int64 {
	if len(os.Args) <= i {
		return def
	}
	v, err := strconv.ParseInt(os.Args[i], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad number:", os.Args[i])
		os.Exit(2)
	}
	return v
}

func spawnJoin(n int64) {
	handles := make([]chan int64, n)
	for i := int64(0); i < n; i++ {
		h := make(chan int64, 1)
		handles[i] = h
		go func(i int64) { h <- i }(i)
	}
	var sum int64
	for _, h := range handles {
		sum += <-h
	}
	if sum != n*(n-1)/2 {
		fmt.Fprintln(os.Stderr, "mt_spawn: bad sum", sum)
		os.Exit(1)
	}
}

func pingpong(m int64) {
	ch1, ch2 := make(chan int64, 1), make(chan int64, 1)
	done := make(chan int64)
	go func() {
		var c int64
		for i := int64(0); i < m; i++ {
			ch1 <- c
			c = <-ch2
		}
		close(ch1) // ends the other's loop
		done <- c
	}()
	go func() {
		for v := range ch1 {
			ch2 <- v + 1
		}
	}()
	if c := <-done; c != m {
		fmt.Fprintln(os.Stderr, "mt_pingpong: bad counter", c)
		os.Exit(1)
	}
}

func yields(t, k int64) {
	var wg sync.WaitGroup
	wg.Add(int(t))
	for i := int64(0); i < t; i++ {
		go func() {
			for j := int64(0); j < k; j++ {
				runtime.Gosched()
			}
			wg.Done()
		}()
	}
	wg.Wait()
}

func main() {
	w := ""
	if len(os.Args) > 1 {
		w = os.Args[1]
	}
	var n, workers int64
	var run func()
	switch w {
	case "mt_spawn":
		n, workers = arg(2, 1000000), arg(3, 2)
		run = func() { spawnJoin(n) }
	case "mt_pingpong":
		n, workers = arg(2, 1000000), arg(3, 2)
		run = func() { pingpong(n) }
	case "mt_yield":
		t, k := arg(2, 1000), arg(3, 1000)
		n, workers = t*k, arg(4, 2)
		run = func() { yields(t, k) }
	default:
		fmt.Fprintln(os.Stderr, "usage: peer-go mt_spawn [N] [WORKERS] | mt_pingpong [M] [WORKERS] | mt_yield [T] [K] [WORKERS]")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(int(workers))
	t0 := time.Now()
	run()
	wall := float64(time.Since(t0).Nanoseconds())
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("peer=go workload=%s n=%d wall_ms=%.3f ns_per_op=%.3f ops_per_s=%.3f maxrss_kb=%d workers=%d cpu_ms=%.3f\n",
		w, n, wall/1e6, wall/float64(n), float64(n)*1e9/wall, ru.Maxrss, workers, float64(cpu.Nanoseconds())/1e6)
}
