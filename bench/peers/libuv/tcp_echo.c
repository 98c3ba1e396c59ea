/* SPDX-License-Identifier: MIT */
/*
 * The TCP echo of bench/soak.c (`wasync-soak tcp N`) on libuv: N loopback
 * connections open at once on one loop, both ends in this process. The
 * listener echoes every connection it accepts, libuv's way (a buffer per
 * read, written back, freed when the write is done). The clients as the
 * soak's: at most 512 started and not yet accepted (under the listen
 * backlog); once every connection is up, each writes 10 KiB in 1 KiB writes,
 * one after the other (each done when the kernel has it), while it reads
 * the echo back in reads of at most 1 KiB and checks every byte. Prints the soak's lines, so that
 * bench/run.sh reads both alike.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <uv.h>

#include "tcp_echo.h"

#define BYTES 10240
#define CHUNK 1024
#define WINDOW 512
#define ECHO_BUF 4096

#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))

typedef struct client {
    uv_tcp_t tcp;
    uv_connect_t connect;
    uv_write_t write;
    uint32_t id;
    size_t sent, got;
    int writing;
    unsigned char wbuf[CHUNK], rbuf[CHUNK];
} client;

typedef struct echo_write {
    uv_write_t req;
    char buf[ECHO_BUF];
} echo_write;

static uv_loop_t *loop;
static uv_tcp_t listener;
static struct sockaddr_in addr;
static client *clients;
static long n, started, connected, accepted, echoed;
static int open_;
static double t_connected;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Byte k of client id's stream: its id first, so that crossed connections
 * show (the soak's tcp_byte). */
static unsigned char tcp_byte(uint32_t id, size_t k)
{
    return (unsigned char)(k < 4 ? id >> (8 * k) : k * 31 + (k >> 8) + id);
}

/* A failed step ends the run: nothing is measured from a broken one. */
static void die(const char *what, long err)
{
    fprintf(stderr, "tcp echo: %s: %s\n", what, err < 0 ? uv_strerror((int)err) : "wrong byte");
    exit(1);
}

/* A client is done when its last write is done and its last byte back. */
static void client_done(client *c)
{
    if (c->sent == BYTES && !c->writing && c->got == BYTES) {
        echoed++;
        uv_close((uv_handle_t *)&c->tcp, NULL);
    }
}

static void client_wrote(uv_write_t *req, int status);

/* Writes the client's chunks one after the other, each done when the
 * kernel has it, as the soak's writes are: at once when the socket takes
 * it all (uv_try_write), else through uv_write, whose callback goes on.
 * Then the client may be done. */
static void client_write(client *c)
{
    for (; c->sent < BYTES; c->sent += CHUNK) {
        for (size_t k = 0; k < CHUNK; k++)
            c->wbuf[k] = tcp_byte(c->id, c->sent + k);
        uv_buf_t b = uv_buf_init((char *)c->wbuf, CHUNK);
        int n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
        if (n == CHUNK)
            continue;
        if (n < 0 && n != UV_EAGAIN)
            die("write", n);
        size_t done = n > 0 ? (size_t)n : 0;
        b = uv_buf_init((char *)c->wbuf + done, (unsigned)(CHUNK - done));
        c->writing = 1;
        if ((n = uv_write(&c->write, (uv_stream_t *)&c->tcp, &b, 1, client_wrote)) < 0)
            die("write", n);
        return;
    }
    client_done(c);
}

static void client_wrote(uv_write_t *req, int status)
{
    client *c = container_of(req, client, write);
    c->writing = 0;
    if (status < 0)
        die("write", status);
    c->sent += CHUNK;
    client_write(c);
}

static void client_alloc(uv_handle_t *h, size_t size, uv_buf_t *b)
{
    (void)size;
    client *c = container_of(h, client, tcp);
    size_t want = BYTES - c->got < CHUNK ? BYTES - c->got : CHUNK;
    *b = uv_buf_init((char *)c->rbuf, (unsigned)want);
}

static void client_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
    (void)b;
    client *c = container_of(s, client, tcp);
    if (nread == 0)
        return;
    if (nread < 0)
        die("read", (long)nread);
    for (ssize_t k = 0; k < nread; k++)
        if (c->rbuf[k] != tcp_byte(c->id, c->got + (size_t)k))
            die("read", 0);
    c->got += (size_t)nread;
    if (c->got == BYTES) {
        uv_read_stop(s);
        client_done(c);
    }
}

/* Opens the barrier once every client is connected and every connection
 * accepted: each client writes and reads at once, so that neither side's
 * buffers can fill up with nobody reading. */
static void arrive(void)
{
    if (connected < n || accepted < n)
        return;
    t_connected = now_s();
    open_ = 1;
    for (long i = 0; i < n; i++) {
        client *c = &clients[i];
        int rc = uv_read_start((uv_stream_t *)&c->tcp, client_alloc, client_read);
        if (rc < 0)
            die("read", rc);
        client_write(c);
    }
}

static void client_connected(uv_connect_t *req, int status)
{
    (void)req;
    if (status < 0)
        die("connect", status);
    connected++;
    arrive();
}

static void client_start(void)
{
    client *c = &clients[started];
    c->id = (uint32_t)started++;
    int rc = uv_tcp_init(loop, &c->tcp);
    if (rc == 0)
        rc = uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr *)&addr, client_connected);
    if (rc < 0)
        die("connect", rc);
}

static void echo_alloc(uv_handle_t *h, size_t size, uv_buf_t *b)
{
    (void)h, (void)size;
    echo_write *w = malloc(sizeof *w);
    *b = w ? uv_buf_init(w->buf, ECHO_BUF) : uv_buf_init(NULL, 0); /* no buffer: UV_ENOBUFS */
}

static void echo_wrote(uv_write_t *req, int status)
{
    uv_handle_t *h = (uv_handle_t *)req->handle;
    free(container_of(req, echo_write, req));
    if (status < 0 && !uv_is_closing(h))
        uv_close(h, (uv_close_cb)free);
}

static void echo_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
    echo_write *w = b->base ? container_of(b->base, echo_write, buf) : NULL;
    if (nread > 0) {
        uv_buf_t out = uv_buf_init(b->base, (unsigned)nread);
        if (uv_write(&w->req, s, &out, 1, echo_wrote) == 0)
            return;
        nread = UV_EIO;
    }
    free(w);
    if (nread < 0 && !uv_is_closing((uv_handle_t *)s))
        uv_close((uv_handle_t *)s, (uv_close_cb)free); /* UV_EOF: the client is done */
}

static void accepted_one(uv_stream_t *l, int status)
{
    uv_tcp_t *t = malloc(sizeof *t);
    if (status == 0 && !t)
        status = UV_ENOMEM;
    if (status == 0)
        status = uv_tcp_init(loop, t);
    if (status == 0 && (status = uv_accept(l, (uv_stream_t *)t)) == 0)
        status = uv_read_start((uv_stream_t *)t, echo_alloc, echo_read);
    if (status < 0)
        die("accept", status);
    accepted++;
    if (started < n)
        client_start(); /* the accept freed a slot of the window */
    if (accepted == n)
        uv_close((uv_handle_t *)&listener, NULL);
    arrive();
}

static double cpu_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

int tcp_echo(uv_loop_t *l, long count)
{
    loop = l;
    n = count;
    printf("soak: tcp %ld\n", n);
    fflush(stdout);
    clients = calloc((size_t)n, sizeof *clients);
    if (!clients || uv_ip4_addr("127.0.0.1", 0, &addr) < 0 || uv_tcp_init(loop, &listener) < 0 ||
        uv_tcp_bind(&listener, (const struct sockaddr *)&addr, 0) < 0 ||
        uv_listen((uv_stream_t *)&listener, SOMAXCONN, accepted_one) < 0) {
        fprintf(stderr, "tcp echo: cannot listen\n");
        return 1;
    }
    int len = sizeof addr;
    uv_tcp_getsockname(&listener, (struct sockaddr *)&addr, &len);

    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    double t0 = now_s();
    while (started < n && started < WINDOW)
        client_start();
    uv_run(loop, UV_RUN_DEFAULT);
    double t1 = now_s();
    getrusage(RUSAGE_SELF, &ru1);
    free(clients);
    if (!open_ || echoed != n) {
        fprintf(stderr, "tcp echo: %ld of %ld connections echoed\n", echoed, n);
        return 1;
    }
    double connect_s = t_connected - t0, echo_s = t1 - t_connected;
    printf("\n%-8s %-26s %s\n", "scenario", "figure", "value");
    printf("%-8s %-26s %ld\n", "tcp", "connections at once", n);
    printf("%-8s %-26s %.3f s (%.0f conn/s)\n", "tcp", "connect + accept all", connect_s, (double)n / connect_s);
    printf("%-8s %-26s %.3f s (%.1f MB/s)\n", "tcp", "echo 10 KiB each", echo_s, (double)n * BYTES / echo_s / 1e6);
    printf("%-8s %-26s %.3f s\n", "tcp", "total", t1 - t0);
    printf("%-8s %-26s %.2f / %.2f s\n", "tcp", "CPU user / system", cpu_s(ru1.ru_utime) - cpu_s(ru0.ru_utime),
           cpu_s(ru1.ru_stime) - cpu_s(ru0.ru_stime));
    return 0;
}
