// SPDX-License-Identifier: MIT
// Go peer for the wasync benchmarks' many-threads workload: mt_spawn N
// spawns N goroutines that each return their index on a channel of their
// own, then receives them in spawn order (GOMAXPROCS is the worker count).
//
// Usage: peer-go mt_spawn [N] [WORKERS]
// Prints: peer=go workload=mt_spawn n=N wall_ms=F ns_per_op=F ops_per_s=F maxrss_kb=K workers=W
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
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

func main() {
	if len(os.Args) < 2 || os.Args[1] != "mt_spawn" {
		fmt.Fprintln(os.Stderr, "usage: peer-go mt_spawn [N] [WORKERS]")
		os.Exit(2)
	}
	n, workers := arg(2, 1000000), arg(3, 2)
	runtime.GOMAXPROCS(int(workers))
	t0 := time.Now()
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
	wall := float64(time.Since(t0).Nanoseconds())
	if sum != n*(n-1)/2 {
		fmt.Fprintln(os.Stderr, "mt_spawn: bad sum", sum)
		os.Exit(1)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("peer=go workload=mt_spawn n=%d wall_ms=%.3f ns_per_op=%.3f ops_per_s=%.3f maxrss_kb=%d workers=%d\n",
		n, wall/1e6, wall/float64(n), float64(n)*1e9/wall, ru.Maxrss, workers)
}
