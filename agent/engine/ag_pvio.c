/* ag_pvio: skip the EAGAIN read after a send (see ag_pvio.h). */
#include "ag_pvio.h"

#include <errno.h>
#include <stdatomic.h>

#include <ma_pvio.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <pthread.h>

/* The socket plugin's own methods (the first seen), and the copy with
 * async_read replaced; written once under init_mu, then read only. */
static _Atomic(PVIO_METHODS *) socket_methods;
static PVIO_METHODS skip_methods;
static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;

/* The connection whose next read is skipped, on this thread: a plain
 * socket's PVIO, or a TLS connection's read BIO (the filter below). */
static _Thread_local const MARIADB_PVIO *skip_pvio;
static _Thread_local const BIO *skip_bio;
static _Thread_local unsigned long long skipped;

/* Connector/C's TLS container, as its public ma_tls.h lays it out
 * (struct st_ma_pvio_tls; ma_pvio.h only sees it as void without
 * HAVE_TLS): ssl is the connection's OpenSSL SSL. */
struct ag__ma_tls {
    void *data;
    MARIADB_PVIO *pvio;
    void *ssl;
};

/* TLS: OpenSSL reads the socket itself (its socket BIO, read(2)), not
 * through the PVIO methods. A filter BIO in front of the socket BIO (the
 * SSL's read side only) answers the first read after arming with "retry
 * read", which SSL_read reports as SSL_ERROR_WANT_READ: Connector/C's
 * non-blocking TLS read then yields MYSQL_WAIT_READ as after a real
 * EAGAIN. Every other call passes to the socket BIO. Made once under
 * init_mu. */
static _Atomic(BIO_METHOD *) skip_bio_method;
static int skip_bio_type; /* its BIO type (a new index, a filter); set before the method */

static int fbio_read(BIO *b, char *buf, int len)
{
    BIO_clear_retry_flags(b);
    if (b == skip_bio) {
        skip_bio = NULL;
        skipped++;
        BIO_set_retry_read(b);
        return -1;
    }
    int r = BIO_read(BIO_next(b), buf, len);
    BIO_copy_next_retry(b);
    return r;
}

static int fbio_write(BIO *b, const char *buf, int len)
{
    BIO_clear_retry_flags(b);
    int r = BIO_write(BIO_next(b), buf, len);
    BIO_copy_next_retry(b);
    return r;
}

static long fbio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    BIO *next = BIO_next(b);
    return next ? BIO_ctrl(next, cmd, num, ptr) : 0;
}

static int fbio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static int fbio_destroy(BIO *b)
{
    (void)b;
    return 1;
}

static BIO_METHOD *filter_method(void)
{
    BIO_METHOD *m = atomic_load_explicit(&skip_bio_method, memory_order_acquire);
    if (m != NULL)
        return m;
    pthread_mutex_lock(&init_mu);
    m = atomic_load_explicit(&skip_bio_method, memory_order_acquire);
    if (m == NULL) {
        int idx = BIO_get_new_index();
        m = idx < 0 ? NULL : BIO_meth_new(idx | BIO_TYPE_FILTER, "stampede read skip");
        if (m && BIO_meth_set_read(m, fbio_read) && BIO_meth_set_write(m, fbio_write) &&
            BIO_meth_set_ctrl(m, fbio_ctrl) && BIO_meth_set_create(m, fbio_create) &&
            BIO_meth_set_destroy(m, fbio_destroy)) {
            skip_bio_type = idx | BIO_TYPE_FILTER;
            atomic_store_explicit(&skip_bio_method, m, memory_order_release);
        } else if (m) {
            BIO_meth_free(m);
            m = NULL;
        }
    }
    pthread_mutex_unlock(&init_mu);
    return m;
}

/* Arm the skip on a TLS connection, putting the filter in front of its
 * read BIO the first time. */
static bool tls_skip(MARIADB_PVIO *p)
{
    SSL *ssl = ((struct ag__ma_tls *)p->ctls)->ssl;
    BIO *rb = ssl ? SSL_get_rbio(ssl) : NULL;
    BIO_METHOD *m = filter_method();

    if (rb == NULL || m == NULL)
        return false;
    if (BIO_method_type(rb) != skip_bio_type) {
        BIO *f = BIO_new(m);
        if (f == NULL || !BIO_up_ref(rb)) {
            BIO_free(f);
            return false;
        }
        BIO_push(f, rb);       /* f holds the reference just taken */
        SSL_set0_rbio(ssl, f); /* drops the SSL's read reference to rb */
        /* Read ahead: one read(2) takes a whole reply (record header and
         * body) instead of a 5-byte header read and then the body. What
         * OpenSSL buffers beyond a record is handed out by the next
         * SSL_read before it asks the BIO for more, so no wait is skipped
         * over buffered data. */
        SSL_set_read_ahead(ssl, 1);
        rb = f;
    }
    skip_bio = rb;
    return true;
}

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

    if (p == NULL)
        return false;
    if (p->ctls != NULL)
        return tls_skip(p);
    if (p->methods == NULL)
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
    skip_bio = NULL;
}

unsigned long long ag_pvio_skipped(void)
{
    return skipped;
}
