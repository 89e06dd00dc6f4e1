/* co_keys: being written. */
typedef int co_keys_placeholder_;
