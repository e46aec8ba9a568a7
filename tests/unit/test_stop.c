/* test_stop.c: (being written) */
#include <CUnit/CUnit.h>

#include "suites.h"

void suite_stop(void)
{
    CU_add_suite("stop", NULL, NULL);
}
