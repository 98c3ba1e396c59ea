/* SPDX-License-Identifier: MIT */
/* A fuzzer without libFuzzer: runs LLVMFuzzerTestOneInput once on every
 * file named on the command line, or in a folder named there, so that the
 * corpora are regression tests in every native build (any compiler). Each
 * input is in a block of its exact size, for ASan to see a read past it.
 * Prints how many inputs ran; fails when there were none (a lost corpus). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return perror(path), -1;
    size_t cap = 4096, n = 0, got;
    uint8_t *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 1;
}

/* Runs path, a file or a folder's files; returns how many, or -1. */
static int replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return perror(path), -1;
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (!d)
        return perror(path), -1;
    int count = 0;
    struct dirent *e;
    char file[4096];
    while (count >= 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        int rc = replay_file(file);
        count = rc < 0 ? rc : count + rc;
    }
    closedir(d);
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        int rc = replay(argv[i]);
        if (rc < 0)
            return 1;
        total += rc;
    }
    const char *name = argc ? strrchr(argv[0], '/') : NULL;
    printf("%s: %d inputs replayed, no crash\n", name ? name + 1 : "replay", total);
    return total == 0;
}
