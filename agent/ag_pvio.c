/* ag_pvio: skip the EAGAIN read after a send (see ag_pvio.h). */
#include "ag_pvio.h"

#include <errno.h>
#include <stdatomic.h>

#include <ma_pvio.h>
#include <pthread.h>

/* The socket plugin's own methods (the first seen), and the copy with
 * async_read replaced; written once under init_mu, then read only. */
static _Atomic(PVIO_METHODS *) socket_methods;
static PVIO_METHODS skip_methods;
static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;

/* The connection whose next read is skipped, on this thread. */
static _Thread_local const MARIADB_PVIO *skip_pvio;
static _Thread_local unsigned long long skipped;

static ssize_t skip_async_read(MARIADB_PVIO *p, uchar *buf, size_t len)
{
    if (p == skip_pvio) {
        skip_pvio = NULL;
        skipped++;
        errno = EAGAIN;
        return -1;
    }
    PVIO_METHODS *orig = atomic_load_explicit(&socket_methods, memory_order_acquire);
    return orig->async_read(p, buf, len);
}

/* The first connection's methods become the ones wrapped. */
static PVIO_METHODS *wrap_first(PVIO_METHODS *m)
{
    pthread_mutex_lock(&init_mu);
    PVIO_METHODS *orig = atomic_load_explicit(&socket_methods, memory_order_acquire);
    if (orig == NULL && m->async_read != NULL) {
        skip_methods = *m;
        skip_methods.async_read = skip_async_read;
        orig = m;
        atomic_store_explicit(&socket_methods, orig, memory_order_release);
    }
    pthread_mutex_unlock(&init_mu);
    return orig;
}

bool ag_pvio_skip_read(MYSQL *m)
{
    MARIADB_PVIO *p = m ? m->net.pvio : NULL;

    if (p == NULL || p->ctls != NULL || p->methods == NULL)
        return false;
    if (p->methods != &skip_methods) {
        PVIO_METHODS *orig = atomic_load_explicit(&socket_methods, memory_order_acquire);
        if (orig == NULL)
            orig = wrap_first(p->methods);
        if (p->methods != orig)
            return false; /* another transport plugin */
        p->methods = &skip_methods;
    }
    skip_pvio = p;
    return true;
}

void ag_pvio_skip_clear(void)
{
    skip_pvio = NULL;
}

unsigned long long ag_pvio_skipped(void)
{
    return skipped;
}
