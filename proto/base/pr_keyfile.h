/* pr_keyfile: CURVE key text and key files, one rule for both programs.
 *
 * A key is 40 characters of Z85 (ZeroMQ RFC 32) encoding 32 bytes. A key
 * file holds the key on its first line (trailing blanks and the line end
 * are dropped; later lines are ignored). A SECRET key file must be a
 * regular file that neither group nor others may read or write (mode &
 * 077 == 0): the coordinator and the agent refuse it otherwise, naming the
 * file and the fix (`chmod 600 FILE`), because a secret anyone on the host
 * can read authenticates anyone. Public keys may be world readable.
 *
 * Buffers that held secret text are scrubbed before they are released.
 * No libzmq here: deriving a public key stays with the caller.
 */
#ifndef PR_KEYFILE_H
#define PR_KEYFILE_H

#include <stdbool.h>

#include <sys/stat.h>

#include "pr_err.h"

#define PR_KEY_LEN 40 /* Z85 text of a 32-byte CURVE key */

/* True when s is exactly PR_KEY_LEN Z85 characters that decode (each
 * 5-character group is below 2^32). */
bool pr_key_is_z85(const char *s);

/* Read a secret key file into out. 0, or PR_EINVAL with err naming the
 * file, the problem and the fix: missing or unreadable, not a regular
 * file, readable or writable by group or others ("run chmod 600 FILE";
 * the one exception is mode 0440 owned by root, a Kubernetes Secret volume
 * with fsGroup: docs/kubernetes.md),
 * first line not a Z85 key. what (e.g. "--secret-key-file", or NULL)
 * prefixes the message. out is unchanged on error. */
int pr_keyfile_read_secret(const char *path, char out[PR_KEY_LEN + 1], const char *what,
                           struct pr_error *err);

/* True when st is mode 0440 owned by root: what the kubelet writes for a
 * Secret volume with fsGroup, the one group-readable shape a secret file
 * (key, password) may have. */
bool pr_keyfile_is_secret_volume(const struct stat *st);

/* A public key given as the key itself or as a file holding it (a file
 * that exists wins over a key spelled the same way). 0, or PR_EINVAL with
 * err naming the argument (what prefixes it as above). */
int pr_keyfile_read_public(const char *key_or_path, char out[PR_KEY_LEN + 1], const char *what,
                           struct pr_error *err);

/* Keep this process's secrets (the database password, CURVE secret keys)
 * out of core files and away from other processes of its user: the
 * process is made non-dumpable (prctl PR_SET_DUMPABLE 0: no core file on a
 * crash, no ptrace attach without CAP_SYS_PTRACE, /proc/PID files owned by
 * root). STAMPEDE_ALLOW_CORE_DUMPS=1 in the environment keeps it dumpable
 * (to debug a crash). True when the process is now non-dumpable. Call
 * first thing in main(). */
bool pr_secrets_protect(void);

#endif
