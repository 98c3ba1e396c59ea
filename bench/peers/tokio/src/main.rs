// SPDX-License-Identifier: MIT
//! tokio peer for the wasync benchmarks: the single-threaded `current_thread`
//! runtime (comparable with a single-threaded C event loop), and the
//! `multi_thread` one for the mt_ workloads: mt_spawn (spawn_join),
//! mt_pingpong (yield_pingpong), mt_yield (T tasks yielding K times) and
//! mt_workers (examples/workers.c: 4 tasks, each 5 runs of 200 ms of its
//! thread's CPU time, yielding between runs). sleepers: N tasks asleep until
//! one deadline a minute on, the peak RSS they add per task once all are armed.
//! tcp_echo and mt_tcp_echo, bench/soak.c's TCP echo (src/tcp_echo.rs).
//!
//! Usage: peer-tokio spawn_join [N] | yield_pingpong [M] | timers [T] [MAX_MS] | sleepers [N]
//!                   | mt_spawn [N] [WORKERS] | mt_pingpong [M] [WORKERS] | mt_yield [T] [K] [WORKERS]
//!                   | mt_workers [WORKERS] | tcp_echo [N] | mt_tcp_echo [N] [WORKERS]
//! Prints one line (the echo: the soak's lines):
//! peer=tokio workload=W n=N wall_ms=F ns_per_op=F ops_per_s=F maxrss_kb=K [over_ideal_ms=F] [rss_per_task=B]
//! [workers=W cpu_ms=F]

use std::process::exit;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

mod tcp_echo;

fn arg(args: &[String], i: usize, default: u64) -> u64 {
    match args.get(i) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("bad number: {s}");
            exit(2)
        }),
    }
}

/// Peak RSS in KiB and CPU time of every thread in ms.
fn rusage() -> (i64, f64) {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    (ru.ru_maxrss as i64, ms(ru.ru_utime) + ms(ru.ru_stime))
}

/// Same generator as the other peers, so every peer sleeps the same durations.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E3779B97F4A7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    z ^ (z >> 31)
}

/// Spawn n tasks returning their index, then join them in spawn order.
async fn spawn_join(n: u64) -> Duration {
    let t0 = Instant::now();
    let handles: Vec<_> = (0..n).map(|i| tokio::spawn(async move { i })).collect();
    let mut sum = 0u64;
    for h in handles {
        sum += h.await.unwrap();
    }
    let wall = t0.elapsed();
    if sum != n * n.saturating_sub(1) / 2 {
        eprintln!("spawn_join: bad sum {sum}");
        exit(1);
    }
    wall
}

/// A sends the counter to B on ch1, B sends it back +1 on ch2: m round trips.
async fn yield_pingpong(m: u64) -> Duration {
    let (tx1, mut rx1) = mpsc::channel::<u64>(1);
    let (tx2, mut rx2) = mpsc::channel::<u64>(1);
    let t0 = Instant::now();
    let a = tokio::spawn(async move {
        let mut c = 0;
        for _ in 0..m {
            tx1.send(c).await.unwrap();
            c = rx2.recv().await.unwrap();
        }
        c // dropping tx1 here ends B's loop
    });
    let b = tokio::spawn(async move {
        while let Some(v) = rx1.recv().await {
            tx2.send(v + 1).await.unwrap();
        }
    });
    let c = a.await.unwrap();
    b.await.unwrap();
    let wall = t0.elapsed();
    if c != m {
        eprintln!("yield_pingpong: bad counter {c}");
        exit(1);
    }
    wall
}

/// t tasks, each yielding k times, joined in spawn order.
async fn mt_yield(t: u64, k: u64) -> Duration {
    let t0 = Instant::now();
    let handles: Vec<_> = (0..t)
        .map(|_| {
            tokio::spawn(async move {
                for _ in 0..k {
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for h in handles {
        h.await.unwrap();
    }
    t0.elapsed()
}

/// t concurrent tasks, each sleeping one of the pre-generated durations.
async fn timers(durations: Vec<u64>) -> Duration {
    let t0 = Instant::now();
    let handles: Vec<_> = durations
        .into_iter()
        .map(|d| tokio::spawn(async move { tokio::time::sleep(Duration::from_millis(d)).await }))
        .collect();
    for h in handles {
        h.await.unwrap();
    }
    t0.elapsed()
}

/// The calling thread's CPU time.
fn thread_cpu() -> Duration {
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// examples/workers.c: a task's run stays on one thread (a poll), so its
/// thread's CPU time is its own.
async fn mt_workers() -> Duration {
    let t0 = Instant::now();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn(async {
                for run in 1..=5 {
                    let until = thread_cpu() + Duration::from_millis(200);
                    while thread_cpu() < until {}
                    if run < 5 {
                        tokio::task::yield_now().await;
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.await.unwrap();
    }
    t0.elapsed()
}

/// n tasks asleep until one deadline: the peak RSS they add, per task, once
/// every one has armed its sleep (counted in `ARMED` at its first poll).
/// The deadline is far enough that none is due before the last arms (a
/// million take longer than wasync's 500 ms); the run ends once measured,
/// dropping them asleep.
async fn sleepers(n: u64) -> (Duration, f64) {
    static ARMED: AtomicU64 = AtomicU64::new(0);
    let rss0 = rusage().0;
    let t0 = Instant::now();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    for _ in 0..n {
        tokio::spawn(async move {
            ARMED.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep_until(deadline).await;
        });
    }
    while ARMED.load(Ordering::Relaxed) < n {
        tokio::task::yield_now().await;
    }
    let per = (rusage().0 - rss0) as f64 * 1024.0 / n as f64;
    (t0.elapsed(), per)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let workload = args.get(1).map(String::as_str).unwrap_or("");
    // mt_*: on the multi_thread runtime with WORKERS (the last argument) workers.
    let mt = workload.starts_with("mt_");
    let workers = arg(&args, match workload { "mt_yield" => 4, "mt_workers" => 2, _ => 3 }, 2);
    let rt = if mt {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers as usize)
            .enable_all()
            .build()
            .unwrap()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };

    if workload == "tcp_echo" || workload == "mt_tcp_echo" {
        tcp_echo::run(&rt, arg(&args, 2, 10_000));
        return;
    }
    let mut rss_per_task = None;
    let (n, wall, ideal_ms) = match workload {
        "spawn_join" | "mt_spawn" => {
            let n = arg(&args, 2, 1_000_000);
            (n, rt.block_on(spawn_join(n)), None)
        }
        "yield_pingpong" | "mt_pingpong" => {
            let m = arg(&args, 2, 1_000_000);
            (m, rt.block_on(yield_pingpong(m)), None)
        }
        "timers" => {
            let (t, max_ms) = (arg(&args, 2, 100_000), arg(&args, 3, 100));
            // Durations are drawn before the clock starts.
            let mut state = 42u64;
            let durations: Vec<u64> =
                (0..t).map(|_| splitmix64(&mut state) % (max_ms + 1)).collect();
            let ideal = durations.iter().copied().max().unwrap_or(0);
            (t, rt.block_on(timers(durations)), Some(ideal))
        }
        "mt_yield" => {
            let (t, k) = (arg(&args, 2, 1000), arg(&args, 3, 1000));
            (t * k, rt.block_on(mt_yield(t, k)), None)
        }
        "mt_workers" => (4, rt.block_on(mt_workers()), None),
        "sleepers" => {
            let n = arg(&args, 2, 1_000_000);
            let (wall, per) = rt.block_on(sleepers(n));
            rss_per_task = Some(per);
            (n, wall, None)
        }
        _ => {
            eprintln!(
                "usage: {} spawn_join [N] | yield_pingpong [M] | timers [T] [MAX_MS] | sleepers [N] \
                 | mt_spawn [N] [WORKERS] | mt_pingpong [M] [WORKERS] | mt_yield [T] [K] [WORKERS] \
                 | mt_workers [WORKERS] | tcp_echo [N] | mt_tcp_echo [N] [WORKERS]",
                args[0]
            );
            exit(2)
        }
    };

    let wall_ns = wall.as_nanos() as f64;
    let per_op = if n > 0 { wall_ns / n as f64 } else { 0.0 };
    let ops_s = if wall_ns > 0.0 { n as f64 * 1e9 / wall_ns } else { 0.0 };
    let (maxrss_kb, cpu_ms) = rusage();
    let mut line = format!(
        "peer=tokio workload={workload} n={n} wall_ms={:.3} ns_per_op={per_op:.3} ops_per_s={ops_s:.3} maxrss_kb={maxrss_kb}",
        wall_ns / 1e6
    );
    if let Some(ideal) = ideal_ms {
        line += &format!(" over_ideal_ms={:.3}", wall_ns / 1e6 - ideal as f64);
    }
    if let Some(per) = rss_per_task {
        line += &format!(" rss_per_task={per:.1}");
    }
    if mt {
        line += &format!(" workers={workers} cpu_ms={cpu_ms:.3}");
    }
    println!("{line}");
}
