/* Lifting host lists of strings into C (see lift.h). Each lift sizes its
 * result first, reading only lengths, then checks the bytes, then copies:
 * a list whose lengths lie is refused before its strings are touched. */
#include <string.h>

#include "lift.h"
#include "wasync/error.h"

int wa_p2_list_check(wa_p2_str *list, size_t n, size_t k)
{
    if (n <= WA_P2_MEM_MAX / (k * sizeof *list))
        return 0;
    wa_p2_host_free(list, n);
    return WA_E2BIG;
}

void wa_p2_list_free(wa_p2_str *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        wa_p2_host_free(list[i].ptr, list[i].len);
    wa_p2_host_free(list, n);
}

/* A block of head bytes followed by the n strings at s, each with one more
 * byte (its NUL or '='). NULL with *rc: WA_E2BIG past WA_P2_MEM_MAX (each
 * step checked, so no sum wraps), WA_EINVAL for a NUL byte (unless
 * nul_ok), WA_ENOMEM. */
static void *wa_p2_block(const wa_p2_str *s, size_t n, size_t head, int nul_ok, int *rc)
{
    size_t size = head; /* (at most WA_P2_MEM_MAX throughout) */
    for (size_t i = 0; i < n; i++) {
        if (s[i].len >= WA_P2_MEM_MAX - size)
            return *rc = WA_E2BIG, NULL;
        size += s[i].len + 1;
    }
    for (size_t i = 0; !nul_ok && i < n; i++)
        if (memchr(s[i].ptr, 0, s[i].len))
            return *rc = WA_EINVAL, NULL;
    void *b = malloc(size ? size : 1);
    *rc = b ? 0 : WA_ENOMEM;
    return b;
}

/* Writes the k strings at s to p, joined by '=' and NUL-terminated (in a
 * header, with NUL, CR and LF as spaces); returns the byte after. */
static char *wa_p2_join(char *p, const wa_p2_str *s, size_t k, int header)
{
    for (size_t j = 0; j < k; j++) {
        memcpy(p, s[j].ptr, s[j].len);
        for (size_t i = 0; header && i < s[j].len; i++)
            if (p[i] == '\0' || p[i] == '\r' || p[i] == '\n')
                p[i] = ' ';
        p += s[j].len;
        *p++ = j + 1 < k ? '=' : '\0';
    }
    return p;
}

int wa_p2_lift_str(wa_p2_str s, char **out)
{
    int rc;
    char *c = wa_p2_block(&s, 1, 0, 0, &rc);
    if (c) {
        wa_p2_join(c, &s, 1, 0);
        *out = c;
    }
    return rc;
}

int wa_p2_lift_strv(wa_p2_str *list, size_t n, size_t k, char ***out)
{
    int rc = wa_p2_list_check(list, n, k);
    if (rc < 0)
        return rc;
    char **v = wa_p2_block(list, n * k, (n + 1) * sizeof *v, 0, &rc);
    if (v) {
        char *p = (char *)(v + n + 1);
        for (size_t i = 0; i < n; i++) {
            v[i] = p;
            p = wa_p2_join(p, list + i * k, k, 0);
        }
        v[n] = NULL;
        *out = v;
    }
    wa_p2_list_free(list, n * k);
    return rc < 0 ? rc : (int)n; /* (n < 2^29: it fits) */
}

int wa_p2_lift_fields(wa_p2_str *list, size_t n, wa_http_header **out)
{
    int rc = wa_p2_list_check(list, n, 2);
    if (rc < 0)
        return rc;
    wa_http_header *h = wa_p2_block(list, 2 * n, n * sizeof *h, 1, &rc);
    if (h) {
        char *p = (char *)(h + n);
        for (size_t i = 0; i < n; i++) {
            h[i].name = p;
            p = wa_p2_join(p, &list[2 * i], 1, 1);
            h[i].value = p;
            p = wa_p2_join(p, &list[2 * i + 1], 1, 1);
        }
        *out = h;
    }
    wa_p2_list_free(list, 2 * n);
    return rc;
}
