/* co_json: being written. */
typedef int co_json_placeholder_;
