/* pr_tc_check: the table of TPC-C consistency conditions that the agent
 * checks and the coordinator names in its report (contract: pr_tc_check.h). */
#include "pr_tc_check.h"

static const struct pr_tc_condition conditions[] = {
    {1, "W_YTD = sum(D_YTD) of the warehouse's districts", true},
    {2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) of the district", true},
    {3, "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW_ORDERS of the district", true},
    {4, "sum(O_OL_CNT) = rows in ORDER_LINE of the district", true},
    {5, "O_CARRIER_ID is NULL exactly for the orders with a NEW_ORDERS row", false},
    {6, "O_OL_CNT = the order's rows in ORDER_LINE, for every order", false},
    {7, "OL_DELIVERY_D is NULL exactly for the lines of orders with a NULL O_CARRIER_ID", false},
    {8, "W_YTD = sum(H_AMOUNT) of the warehouse's history", false},
    {9, "D_YTD = sum(H_AMOUNT) of the district's history", false},
    {10, "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) of the customer", false},
    {11, "rows in ORDERS - rows in NEW_ORDERS = 2100 per district (only right after a load)",
     false},
    {12, "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) of the customer", false},
};

const struct pr_tc_condition *pr_tc_conditions(size_t *n)
{
    *n = sizeof conditions / sizeof conditions[0];
    return conditions;
}
