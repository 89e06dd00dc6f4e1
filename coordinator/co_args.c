/* co_args: being written. */
typedef int co_args_placeholder_;
