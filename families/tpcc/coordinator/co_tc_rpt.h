/* co_tc_rpt: the tpcc family's part of the report tool (co_rpt_family.h),
 * which its co_family names (.rpt). */
#ifndef CO_TC_RPT_H
#define CO_TC_RPT_H

#include "co_rpt_family.h"

extern const struct co_rpt_family co_tc_rpt_family;

#endif
