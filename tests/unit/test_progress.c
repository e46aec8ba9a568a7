/* test_progress.c: the progress line: counts, rate and ETA, and its pacing (a line per
 * interval on a log, nothing in between). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "core/base/progress.h"
#include "suites.h"

static void test_format_counts_rate_eta(void)
{
    is_progress p;
    is_progress_init(&p, stderr, 0, 5.0, 100, 20, 10.0);
    p.done = 28;
    p.failed = 2;
    char line[256];
    is_progress_format(&p, 13.0, line, sizeof line); /* 30 points in 3 s: 10 points/s */
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "50/100 points (50.0%)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "2 failed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "10 points/s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "ETA 5s")); /* 50 left at 10 per second */
    p.done = 0;
    p.failed = 0;
    is_progress_format(&p, 10.0, line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "ETA ?")); /* no rate yet */
}

static int count_lines(FILE *f)
{
    int lines = 0, c;
    rewind(f);
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    return lines;
}

static void test_lines_are_paced(void)
{
    FILE *log = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    is_progress p;
    is_progress_init(&p, log, 0, 5.0, 1000, 0, 0.0);
    for (int i = 1; i <= 100; i++)
        is_progress_add(&p, 1, 0, 0.1 * i); /* 10 s of updates: two intervals */
    CU_ASSERT_EQUAL(count_lines(log), 2);
    is_progress_finish(&p, 10.5);
    CU_ASSERT_EQUAL(count_lines(log), 3);
    CU_ASSERT_EQUAL(p.done, 100);
    fclose(log);
}

void suite_progress(void)
{
    CU_pSuite s = CU_add_suite("progress", NULL, NULL);
    CU_add_test(s, "points, rate and ETA", test_format_counts_rate_eta);
    CU_add_test(s, "one line per interval on a log", test_lines_are_paced);
}
