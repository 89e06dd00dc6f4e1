/* testlib: the few macros our C tests share. A check that fails prints the
 * file, line and expression and marks the test failed; TEST_END() returns the
 * exit status meson expects (0 pass, 1 fail). TEST_SKIP() exits 77. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int testlib_failures;
static int testlib_checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        testlib_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            testlib_failures++;                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        testlib_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            testlib_failures++;                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                         \
    do {                                                                                           \
        uint64_t testlib_a = (uint64_t)(a), testlib_b = (uint64_t)(b);                             \
        CHECK_MSG(testlib_a == testlib_b, "%" PRIu64 " != %" PRIu64, testlib_a, testlib_b);        \
    } while (0)

#define TEST_SKIP(why)                                                                             \
    do {                                                                                           \
        printf("SKIP: %s\n", why);                                                                 \
        exit(77);                                                                                  \
    } while (0)

#define TEST_END()                                                                                 \
    (printf("%d checks, %d failed\n", testlib_checks, testlib_failures), testlib_failures ? 1 : 0)

/* Text a function writes to a FILE *, captured in memory: cap_open() gives
 * the stream, cap_text() closes it and gives the text, which stays valid
 * until cap_free() (or free(c.buf)). */
struct cap {
    FILE *f;
    char *buf;
    size_t len;
};

static inline FILE *cap_open(struct cap *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    if (!c->f) {
        perror("open_memstream");
        exit(1);
    }
    return c->f;
}

static inline char *cap_text(struct cap *c)
{
    fclose(c->f);
    c->f = NULL;
    return c->buf;
}

static inline void cap_free(struct cap *c)
{
    free(c->buf);
    c->buf = NULL;
}

/* TESTLIB_COUNT_ALLOCS defined before including: nallocs counts the
 * program's malloc, calloc and realloc calls. Link it with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (tests/unit/meson.build's
 * alloc_wrap); include it so in one file of the program only. */
#ifdef TESTLIB_COUNT_ALLOCS
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
static uint64_t nallocs;

void *__wrap_malloc(size_t n)
{
    nallocs++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    nallocs++;
    return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    nallocs++;
    return __real_realloc(p, n);
}
#endif

#endif
