/* co_csv: being written. */
typedef int co_csv_placeholder_;
