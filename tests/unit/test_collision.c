/* test_collision.c: (being written) */
#include <CUnit/CUnit.h>

#include "suites.h"

void suite_collision(void)
{
    CU_add_suite("collision", NULL, NULL);
}
