// SPDX-License-Identifier: MIT
//! The TCP echo of bench/soak.c (`wasync-soak tcp N`) on tokio: N loopback
//! connections open at once in one runtime, both ends in this process; a
//! server task accepts them all and echoes each in a task of its own; each
//! client, once every connection is up, writes 10 KiB in 1 KiB writes while
//! it reads the echo back and checks every byte. At most 512 connections are
//! started and not yet accepted (under the listen backlog), as in the soak.
//! Prints the soak's lines, so that bench/run.sh reads both alike.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};

const BYTES: usize = 10240;
const CHUNK: usize = 1024;
const WINDOW: usize = 512;

/// Byte k of client id's stream: its id first, so that crossed connections
/// show (the soak's tcp_byte).
fn byte(id: u32, k: usize) -> u8 {
    if k < 4 {
        (id >> (8 * k)) as u8
    } else {
        (k as u64).wrapping_mul(31).wrapping_add((k >> 8) as u64).wrapping_add(id as u64) as u8
    }
}

struct State {
    n: u64,
    connected: AtomicU64,
    accepted: AtomicU64,
    echoed: AtomicU64,
    failed: AtomicU64,
    open: AtomicBool,
    window: Semaphore,
    go: Notify,
    t_connected: Mutex<Option<Instant>>,
}

impl State {
    /// Opens the barrier once every client is connected and every
    /// connection accepted (once, whichever side arrives last).
    fn arrive(&self) {
        if self.connected.load(Ordering::SeqCst) < self.n || self.accepted.load(Ordering::SeqCst) < self.n {
            return;
        }
        if self.open.swap(true, Ordering::SeqCst) {
            return;
        }
        *self.t_connected.lock().unwrap() = Some(Instant::now());
        self.go.notify_waiters();
    }
}

async fn echo(mut s: TcpStream) {
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(k) => {
                if s.write_all(&buf[..k]).await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn server(l: TcpListener, sh: Arc<State>) {
    let mut echoes = Vec::with_capacity(sh.n as usize);
    while sh.accepted.load(Ordering::SeqCst) < sh.n {
        match l.accept().await {
            Ok((s, _)) => echoes.push(tokio::spawn(echo(s))),
            Err(_) => {
                sh.failed.fetch_add(1, Ordering::SeqCst);
                break;
            }
        }
        sh.accepted.fetch_add(1, Ordering::SeqCst);
        sh.window.add_permits(1);
        sh.arrive();
    }
    for e in echoes {
        let _ = e.await;
    }
}

async fn client(sh: Arc<State>, port: u16, id: u32) {
    sh.window.acquire().await.unwrap().forget(); /* the server frees it */
    let mut s = match TcpStream::connect(("127.0.0.1", port)).await {
        Ok(s) => s,
        Err(_) => {
            sh.failed.fetch_add(1, Ordering::SeqCst);
            sh.window.add_permits(1);
            return;
        }
    };
    let go = sh.go.notified(); /* before the check: a notify_waiters between them still counts */
    sh.connected.fetch_add(1, Ordering::SeqCst);
    sh.arrive();
    if !sh.open.load(Ordering::SeqCst) {
        go.await;
    }
    // write and read at once, so that neither side's buffers can fill up
    // with nobody reading
    let (mut rd, mut wr) = s.split();
    let writer = async {
        let mut buf = [0u8; CHUNK];
        for off in (0..BYTES).step_by(CHUNK) {
            for (k, b) in buf.iter_mut().enumerate() {
                *b = byte(id, off + k);
            }
            wr.write_all(&buf).await?;
        }
        Ok::<(), std::io::Error>(())
    };
    let checker = async {
        let mut buf = [0u8; CHUNK];
        let mut got = 0;
        while got < BYTES {
            let want = (BYTES - got).min(CHUNK);
            let k = rd.read(&mut buf[..want]).await?;
            if k == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            if (0..k).any(|i| buf[i] != byte(id, got + i)) {
                return Err(std::io::ErrorKind::InvalidData.into());
            }
            got += k;
        }
        Ok::<(), std::io::Error>(())
    };
    match tokio::try_join!(writer, checker) {
        Ok(_) => sh.echoed.fetch_add(1, Ordering::SeqCst),
        Err(_) => sh.failed.fetch_add(1, Ordering::SeqCst),
    };
}

async fn driver(sh: Arc<State>) {
    let l = TcpListener::bind(("127.0.0.1", 0)).await.expect("listen");
    let port = l.local_addr().unwrap().port();
    let srv = tokio::spawn(server(l, sh.clone()));
    let clients: Vec<_> = (0..sh.n).map(|i| tokio::spawn(client(sh.clone(), port, i as u32))).collect();
    for c in clients {
        c.await.unwrap();
    }
    srv.await.unwrap();
}

fn cpu_s(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

fn rusage() -> libc::rusage {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru
}

/// Runs the echo of n connections on rt; prints the soak's figures, or
/// fails (exit 1) if a byte was wrong or a connection failed.
pub fn run(rt: &tokio::runtime::Runtime, n: u64) {
    println!("soak: tcp {n}");
    let sh = Arc::new(State {
        n,
        connected: AtomicU64::new(0),
        accepted: AtomicU64::new(0),
        echoed: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        open: AtomicBool::new(false),
        window: Semaphore::new(WINDOW),
        go: Notify::new(),
        t_connected: Mutex::new(None),
    });
    let ru0 = rusage();
    let t0 = Instant::now();
    rt.block_on(driver(sh.clone()));
    let t1 = Instant::now();
    let ru1 = rusage();
    let (echoed, failed) = (sh.echoed.load(Ordering::SeqCst), sh.failed.load(Ordering::SeqCst));
    let tc = *sh.t_connected.lock().unwrap();
    let Some(tc) = tc.filter(|_| echoed == n && failed == 0) else {
        eprintln!("tcp echo: {echoed} of {n} connections echoed, {failed} failed");
        std::process::exit(1);
    };
    let (connect_s, echo_s) = ((tc - t0).as_secs_f64(), (t1 - tc).as_secs_f64());
    println!("\n{:<8} {:<26} value", "scenario", "figure");
    let fig = |name: &str, value: String| println!("{:<8} {name:<26} {value}", "tcp");
    fig("connections at once", format!("{n}"));
    fig("connect + accept all", format!("{connect_s:.3} s ({:.0} conn/s)", n as f64 / connect_s));
    fig("echo 10 KiB each", format!("{echo_s:.3} s ({:.1} MB/s)", (n as usize * BYTES) as f64 / echo_s / 1e6));
    fig("total", format!("{:.3} s", (t1 - t0).as_secs_f64()));
    fig(
        "CPU user / system",
        format!(
            "{:.2} / {:.2} s",
            cpu_s(ru1.ru_utime) - cpu_s(ru0.ru_utime),
            cpu_s(ru1.ru_stime) - cpu_s(ru0.ru_stime)
        ),
    );
}
