/* co_keys: CURVE keys for the coordinator (docs/design.md §10).
 *
 * Key files hold Z85 text (40 characters) on their first line; anything
 * after the first line is ignored. `stampede keygen DIR NAME` writes
 * DIR/NAME.secret (mode 0600) and DIR/NAME.pub (0644), refusing to
 * overwrite. An authorized-keys file lists agent public keys, one per line:
 * "KEY [comment]"; blank lines and '#' comments are skipped.
 *
 * The ZAP handler (ZeroMQ's authentication protocol, RFC 27) admits a CURVE
 * client whose public key is in the authorized list and refuses any other,
 * remembering the refused keys so the coordinator can name them. It runs on
 * the caller's thread: the caller polls co_zap_socket() beside its ROUTER
 * and calls co_zap_handle() when it is readable.
 */
#ifndef CO_KEYS_H
#define CO_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_keyfile.h"

#define CO_KEY_LEN PR_KEY_LEN /* Z85 text of a 32-byte key */

struct co_keypair {
    char public_key[CO_KEY_LEN + 1];
    char secret_key[CO_KEY_LEN + 1];
};

/* A fresh key pair (zmq_curve_keypair). 0 or PR_EINVAL (no CURVE support). */
int co_keys_generate(struct co_keypair *kp, struct pr_error *err);

/* keygen: write DIR/NAME.secret and DIR/NAME.pub (DIR and its missing
 * parents are created 0700). 0, or -EEXIST (either file exists: nothing is
 * written), -errno or PR_EINVAL (NAME with a '/'), err naming the file. */
int co_keys_write(const char *dir, const char *name, const struct co_keypair *kp,
                  struct pr_error *err);

/* Read a secret key file (pr_keyfile_read_secret(): the rule the agent
 * applies too) and derive its public key. 0 or PR_EINVAL naming the file
 * and the problem (missing, unreadable, not 40 Z85 chars, group or world
 * accessible: "chmod 600 FILE"). */
int co_keys_read_secret(const char *path, struct co_keypair *kp, struct pr_error *err);

/* A key given as the key itself or a file holding it (an existing file of
 * that name wins). 0 or PR_EINVAL naming the argument. */
int co_keys_read_public(const char *key_or_path, char out[CO_KEY_LEN + 1], struct pr_error *err);

typedef struct co_keyring co_keyring; /* authorized agent keys */

/* Load an authorized-keys file. The comment after a key is its label
 * (default "FILE:LINE"); duplicates count once. NULL with err set ("FILE:LINE:
 * ..." for a bad line; a file with no key is an error too). */
co_keyring *co_keyring_load(const char *path, struct pr_error *err);
/* An empty keyring, to which keys are added (local spawned agents). */
co_keyring *co_keyring_new(void);
/* Add one Z85 public key with a label (e.g. the agent name); adding a key
 * already there is a no-op. 0 or PR_EINVAL (not a 40-character Z85 key). */
int co_keyring_add(co_keyring *kr, const char *public_key, const char *label);
/* True when the key is authorized. */
bool co_keyring_has(const co_keyring *kr, const char *public_key);
size_t co_keyring_count(const co_keyring *kr);
void co_keyring_destroy(co_keyring **kr);

typedef struct co_zap co_zap;

/* Bind the ZAP endpoint inproc://zeromq.zap.01 on zctx. Must be called
 * before the CURVE server socket binds. kr is borrowed. NULL with err. */
co_zap *co_zap_new(void *zctx, const co_keyring *kr, struct pr_error *err);
/* The REP socket to poll for ZMQ_POLLIN. */
void *co_zap_socket(co_zap *z);
/* Answer every pending request (non-blocking): 200 for an authorized
 * CURVE key (user id = the Z85 key, seen as the "User-Id" message property
 * on the ROUTER), 400 otherwise (other mechanisms, malformed requests).
 * Returns how many were refused by this call. A refused client's libzmq
 * retries the handshake, so one bad agent may be refused many times. */
int co_zap_handle(co_zap *z);
/* Refused so far, and the last refused key (Z85) with its peer address
 * ("" when unknown). Borrowed strings. */
uint64_t co_zap_refused(const co_zap *z);
const char *co_zap_last_refused_key(const co_zap *z);
const char *co_zap_last_refused_addr(const co_zap *z);
void co_zap_destroy(co_zap **z);

#endif
