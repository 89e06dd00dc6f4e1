/* hangconnect: an LD_PRELOAD shim for the e2e tests: a connect() to the TCP
 * port STAMPEDE_TEST_HANG_PORT never returns (the calling thread sleeps for
 * good), as a call stuck in the kernel or in a library would; every other
 * connect() is libc's. test_sigint.py runs an agent daemon under it to
 * check that a run whose thread is stuck does not keep the daemon from the
 * next run (issue 27 §2). */
#include <stdlib.h>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* glibc declares connect() with __CONST_SOCKADDR_ARG: under _GNU_SOURCE a
 * transparent union of the sockaddr pointer types. */
typedef int (*connect_fn)(int, __CONST_SOCKADDR_ARG, socklen_t);

static connect_fn real_connect; /* the next connect (libc's, or a sanitizer's) */
static long hang_port;          /* STAMPEDE_TEST_HANG_PORT, 0: none */

__attribute__((constructor)) static void hangconnect_init(void)
{
    const char *s = getenv("STAMPEDE_TEST_HANG_PORT");
    /* POSIX's way from dlsym's void * to a function pointer */
    *(void **)(&real_connect) = dlsym(RTLD_NEXT, "connect");
    hang_port = s ? strtol(s, NULL, 10) : 0;
}

static long port_of(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
    if (sa->sa_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
    return -1;
}

int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
#ifdef __USE_GNU
    const struct sockaddr *sa = addr.__sockaddr__;
#else
    const struct sockaddr *sa = addr;
#endif
    if (real_connect == NULL)
        hangconnect_init(); /* called before the constructors ran */
    if (hang_port > 0 && sa != NULL && port_of(sa) == hang_port)
        for (;;)
            sleep(1000);
    return real_connect(fd, addr, len);
}
