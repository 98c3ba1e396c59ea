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
//	mt_workers WORKERS     examples/workers.c: 4 goroutines, each 5 runs of
//	                       200 ms of its thread's CPU time, yielding between
//	                       runs (n = 4)
//	sleepers N             N goroutines asleep until one deadline a minute on:
//	                       the peak RSS they add, per goroutine, once all
//	                       are asleep (rss_per_task=B), on one P
//
// Usage: peer-go mt_spawn [N] [WORKERS] | mt_pingpong [M] [WORKERS] | mt_yield [T] [K] [WORKERS]
//
//	| mt_workers [WORKERS] | sleepers [N]
//
// Prints: peer=go workload=W n=N wall_ms=F ns_per_op=F ops_per_s=F maxrss_kb=K workers=W cpu_ms=F
// [rss_per_task=B] (cpu_ms: the CPU time of every thread, the whole run)
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
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

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// cpuWorkers is examples/workers.c: each goroutine stays on its thread
// (LockOSThread) so that its thread's CPU time is its own.
func cpuWorkers() {
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for run := 1; run <= 5; run++ {
				until := threadCPU() + 200*time.Millisecond
				for threadCPU() < until {
				}
				if run < 5 {
					runtime.Gosched()
				}
			}
		}()
	}
	wg.Wait()
}

// sleepers returns the peak RSS that n goroutines asleep add, per goroutine.
// The deadline is far enough that none is due before the last sleeps (a
// million take longer than wasync's 500 ms); the run ends once measured.
func sleepers(n int64) float64 {
	rss := func() int64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return ru.Maxrss
	}
	rss0 := rss()
	deadline := time.Now().Add(time.Minute)
	var asleep sync.WaitGroup
	asleep.Add(int(n))
	for i := int64(0); i < n; i++ {
		go func() {
			asleep.Done()
			time.Sleep(time.Until(deadline))
		}()
	}
	asleep.Wait()
	runtime.Gosched() // (the last ones reach their Sleep)
	return float64(rss()-rss0) * 1024 / float64(n)
}

func main() {
	w := ""
	if len(os.Args) > 1 {
		w = os.Args[1]
	}
	var n, workers int64
	var run func()
	extra := ""
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
	case "mt_workers":
		n, workers = 4, arg(2, 2)
		run = cpuWorkers
	case "sleepers":
		n, workers = arg(2, 1000000), 1
		run = func() { extra = fmt.Sprintf(" rss_per_task=%.1f", sleepers(n)) }
	default:
		fmt.Fprintln(os.Stderr, "usage: peer-go mt_spawn [N] [WORKERS] | mt_pingpong [M] [WORKERS] | mt_yield [T] [K] [WORKERS]"+
			" | mt_workers [WORKERS] | sleepers [N]")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(int(workers))
	t0 := time.Now()
	run()
	wall := float64(time.Since(t0).Nanoseconds())
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("peer=go workload=%s n=%d wall_ms=%.3f ns_per_op=%.3f ops_per_s=%.3f maxrss_kb=%d workers=%d cpu_ms=%.3f%s\n",
		w, n, wall/1e6, wall/float64(n), float64(n)*1e9/wall, ru.Maxrss, workers, float64(cpu.Nanoseconds())/1e6, extra)
}
