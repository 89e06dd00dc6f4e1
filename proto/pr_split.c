#include "pr_err.h"
