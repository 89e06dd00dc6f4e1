/* co_hdrout: being written. */
typedef int co_hdrout_placeholder_;
