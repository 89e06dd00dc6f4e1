/* co_result: being written. */
typedef int co_result_placeholder_;
