#include "co_output.h"

#include <stdio.h>

int co_output_write(const struct co_args *a, const struct co_result *res)
{
    (void)res;
    if (a->json_path || a->csv_path || a->hdr_log_path) {
        fprintf(stderr, "stampede: output files are not written yet\n");
        return -1;
    }
    return 0;
}
