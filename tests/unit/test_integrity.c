/* test_integrity.c: what detects damage in a result file (issue 22). CRC-32C against its
 * published check value and a bitwise reference, its chaining, the batched forms against
 * the byte form, and the property the messages rely on: every single-bit error in a record
 * gives a different, nonzero syndrome. Then a real file (one process, MPI's singleton):
 * built, written, verified; a coordinate changed is found both by the digest of the fixed
 * bytes and against the job; a point's byte changed is found and named; the stop watch of
 * one process reports a signal. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/base/crc32c.h"
#include "core/store/digest.h"
#include "core/job/job.h"
#include "core/base/provenance.h"
#include "core/store/results.h"
#include "core/base/signals.h"
#include "core/base/stop.h"
#include "core/run/reason_table.h"
#include "core/store/verify.h"
#include "suites.h"

/* CRC-32C bit by bit, from its definition (reflected polynomial 0x82F63B78). */
static uint32_t reference_crc(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
    }
    return ~crc;
}

static void test_crc_known_answers(void)
{
    const char *nine = "123456789";
    CHECK(is_crc32c(0, nine, 9) == 0xe3069283u, "CRC-32C of 123456789 is %08x, not e3069283",
          is_crc32c(0, nine, 9));
    unsigned char zeros[32] = {0}, ones[32];
    memset(ones, 0xff, sizeof ones);
    /* RFC 3720 (iSCSI), B.4: 32 bytes of zeros and of ones */
    CHECK(is_crc32c(0, zeros, 32) == 0x8a9136aau, "32 zeros: %08x", is_crc32c(0, zeros, 32));
    CHECK(is_crc32c(0, ones, 32) == 0x62a8ab43u, "32 ones: %08x", is_crc32c(0, ones, 32));
    unsigned char buf[1000];
    unsigned seed = 22;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)rand_r(&seed);
    for (size_t n = 0; n <= sizeof buf; n += 37) {
        CHECK(is_crc32c(0, buf, n) == reference_crc(buf, n), "length %zu differs", n);
        for (size_t cut = 0; cut <= n; cut += 11) /* chaining, as zlib's crc32 */
            CHECK(is_crc32c(is_crc32c(0, buf, cut), buf + cut, n - cut) == is_crc32c(0, buf, n),
                  "length %zu chained at %zu differs", n, cut);
    }
}

static void test_crc_numbers(void)
{
    enum { N = 257 };
    uint64_t v8[N];
    uint32_t v4[N], a[N], b[N];
    uint8_t v1[N];
    unsigned seed = 7;
    for (int i = 0; i < N; i++) {
        v8[i] = (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed);
        v4[i] = (uint32_t)rand_r(&seed);
        v1[i] = (uint8_t)rand_r(&seed);
    }
    is_crc32c_start(a, UINT64_C(1) << 40, N);
    uint32_t started[N];
    memcpy(started, a, sizeof a);
    is_crc32c_finish(a, N);
    for (int i = 0; i < N; i++) {
        uint64_t index = (UINT64_C(1) << 40) + (uint64_t)i;
        unsigned char le[8];
        for (int k = 0; k < 8; k++)
            le[k] = (unsigned char)(index >> (8 * k));
        b[i] = is_crc32c(0, le, 8);
    }
    CHECK(memcmp(a, b, sizeof a) == 0, "is_crc32c_start differs from the bytes' CRC");
    memcpy(a, started, sizeof a);
    is_crc32c_numbers(a, v8, 8, N);
    is_crc32c_numbers(a, v4, 4, N);
    is_crc32c_numbers(a, v1, 1, N);
    is_crc32c_finish(a, N);
    for (int i = 0; i < N; i++) {
        unsigned char le[13];
        for (int k = 0; k < 8; k++)
            le[k] = (unsigned char)(v8[i] >> (8 * k));
        for (int k = 0; k < 4; k++)
            le[8 + k] = (unsigned char)(v4[i] >> (8 * k));
        le[12] = v1[i];
        b[i] = is_crc32c(b[i], le, 13);
    }
    CHECK(memcmp(a, b, sizeof a) == 0, "is_crc32c_numbers differs from the bytes' CRC");
    uint32_t c[N];
    const void *columns[] = {v8, v4, v1};
    const size_t sizes[] = {8, 4, 1};
    is_crc32c_records(c, UINT64_C(1) << 40, N, columns, sizes, 3);
    CHECK(memcmp(a, c, sizeof a) == 0, "is_crc32c_records differs from the bytes' CRC");
    for (size_t n = 0; n < 10; n++) { /* records four at a time, and the rest one by one */
        uint32_t d[10];
        is_crc32c_records(d, UINT64_C(1) << 40, n, columns, sizes, 3);
        CHECK(n == 0 || memcmp(a, d, n * sizeof *d) == 0,
              "is_crc32c_records of %zu records differs from the bytes' CRC", n);
    }
}

/* The largest record (an index, 64 outputs of 8 bytes, a status): every single flipped bit
 * gives its own nonzero syndrome, so verify.c can name the dataset of a flipped bit. */
static void test_crc_single_bits_distinct(void)
{
    enum { BYTES = 8 + 64 * 8 + 1 };
    unsigned char zero[BYTES] = {0}, flip[BYTES] = {0};
    uint32_t base = is_crc32c(0, zero, BYTES), *syndromes = malloc(8 * BYTES * sizeof *syndromes);
    CU_ASSERT_FATAL(syndromes != NULL);
    for (size_t bit = 0; bit < 8 * BYTES; bit++) {
        flip[bit / 8] = (unsigned char)(1u << (bit % 8));
        syndromes[bit] = is_crc32c(0, flip, BYTES) ^ base;
        flip[bit / 8] = 0;
        CHECK(syndromes[bit] != 0 && (syndromes[bit] & (syndromes[bit] - 1)) != 0,
              "bit %zu: syndrome %08x is zero or one bit (a flipped checksum bit)", bit,
              syndromes[bit]);
    }
    size_t same = 0;
    for (size_t i = 0; i < 8 * BYTES; i++)
        for (size_t j = i + 1; j < 8 * BYTES; j++)
            same += syndromes[i] == syndromes[j];
    CHECK(same == 0, "%zu pairs of single-bit errors share a syndrome", same);
    free(syndromes);
}

/* --- a real file ---------------------------------------------------------------------- */

static int started_mpi;

static int suite_init(void)
{
    int up = 0;
    MPI_Initialized(&up);
    if (!up) {
        setenv("OMPI_MCA_io", "^ompio", 0);
        MPI_Init(NULL, NULL);
        started_mpi = 1;
    }
    return 0;
}

static int suite_clean(void)
{
    if (started_mpi)
        MPI_Finalize();
    return 0;
}

/* Builds and fills a 6 x 5 synthetic file at path (every point computed); its job. */
static is_job *made_file(const char *path)
{
    char text[256];
    snprintf(text, sizeof text,
             "[sweep]\nmodel = synthetic\noutput = %s\n[axis.x]\nfrom = 0\nto = 1\ncount = 6\n"
             "[axis.y]\nfrom = -1\nto = 1\ncount = 5\n",
             path);
    is_job *job = NULL;
    is_error err;
    if (is_job_parse("t.ini", text, NULL, 0, is_test_models(), &job, &err) != IS_OK) {
        CHECK(0, "the job does not parse: %s", err.message);
        return NULL;
    }
    is_provenance prov;
    is_provenance_collect(&prov, 1);
    unlink(path);
    is_code rc =
        is_results_build(job, &prov, path, "created by the unit test", MPI_COMM_SELF, &err);
    CHECK(rc == IS_OK, "building %s: %s", path, err.message);
    is_results *r = NULL;
    if (rc == IS_OK)
        rc = is_results_open(path, MPI_COMM_SELF, IS_RESULTS_WRITE, &r, &err);
    double outputs[4 * 30];
    uint8_t status[30];
    for (int i = 0; i < 30; i++) {
        for (int o = 0; o < 4; o++)
            outputs[o * 30 + i] = o == 3 ? i % 3 : 0.5 * i + o;
        status[i] = IS_POINT_DONE;
    }
    if (rc == IS_OK)
        rc = is_results_write(r, 0, 30, outputs, 30, status, NULL, &err);
    CHECK(rc == IS_OK, "writing %s: %s", path, err.message);
    is_results_close(&r, NULL);
    return job;
}

static void test_file_damage_found(void)
{
    char path[] = "/tmp/impactsweep-unit-integrity-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    is_job *job = made_file(path);
    if (!job)
        return;
    is_results *r = NULL;
    is_error err;
    uint64_t stored = 0;
    CU_ASSERT_FATAL(is_results_open(path, MPI_COMM_SELF, IS_RESULTS_WRITE, &r, &err) == IS_OK);
    is_code rc = is_verify_file(r, job, MPI_COMM_SELF, NULL, &stored, &err);
    CHECK(rc == IS_OK && stored == 30, "the fresh file: %s, %llu stored", is_code_name(rc),
          (unsigned long long)stored);
    /* a coordinate changed in place: the digest and the job both see it */
    double x = 0.2000000000000001;
    CU_ASSERT_FATAL(is_results_coordinates(r, 0, 1, 1, &x, 1, &err) == IS_OK);
    rc = is_verify_coordinates(r, job, MPI_COMM_SELF, NULL, &err);
    CHECK(rc == IS_DAMAGED && strstr(err.message, "value 2 of its coordinate x"),
          "the coordinate against the job: %s: %s", is_code_name(rc), err.message);
    rc = is_digest_check(r, MPI_COMM_SELF, NULL, &err);
    CHECK(rc == IS_DAMAGED && strstr(err.message, "coordinate x"),
          "the coordinate against the digest: %s: %s", is_code_name(rc), err.message);
    x = 0.2;
    CU_ASSERT_FATAL(is_results_coordinates(r, 0, 1, 1, &x, 1, &err) == IS_OK);
    CHECK(is_digest_check(r, MPI_COMM_SELF, NULL, &err) == IS_OK, "restored: %s", err.message);
    /* one bit of a point's value: found, and named */
    int32_t cell = 0;
    CU_ASSERT_FATAL(is_results_read_raw(r, 2, 17, 1, &cell, &err) == IS_OK);
    cell ^= 1 << 9;
    CU_ASSERT_FATAL(is_results_write_raw(r, 2, 17, 1, &cell, &err) == IS_OK);
    rc = is_verify_points(r, MPI_COMM_SELF, NULL, &stored, &err);
    CHECK(rc == IS_DAMAGED && strstr(err.message, "point 17") &&
              strstr(err.message, "its value of cell differs in one bit") &&
              strstr(err.message, "bit 9 "),
          "a changed cell: %s: %s", is_code_name(rc), err.message);
    is_results_close(&r, NULL);
    is_job_free(&job);
    unlink(path);
}

/* The reasons' table: 254 distinct texts, then "other" for every further one; read back
 * from the file as written; a point's reason code is under its checksum. */
static void test_reasons_kept(void)
{
    char path[] = "/tmp/impactsweep-unit-reasons-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    is_job *job = made_file(path);
    if (!job)
        return;
    is_results *r = NULL;
    is_error err;
    CU_ASSERT_FATAL(is_results_open(path, MPI_COMM_SELF, IS_RESULTS_WRITE, &r, &err) == IS_OK);
    CU_ASSERT_FATAL(is_results_has_reasons(r));
    is_reason_table table;
    CU_ASSERT_FATAL(is_reason_table_init(&table, r, 1, &err) == IS_OK);
    int right = 1;
    for (unsigned i = 0; i < 300; i++) {
        char text[64];
        snprintf(text, sizeof text, "reason number %u", i);
        unsigned code = 0, again = 0;
        right &= is_reason_table_intern(&table, text, &code, &err) == IS_OK;
        right &= is_reason_table_intern(&table, text, &again, &err) == IS_OK && again == code;
        right &= code == (i < IS_RESULTS_REASON_OTHER - 1 ? i + 1 : IS_RESULTS_REASON_OTHER);
    }
    CHECK(right, "the codes of 300 distinct texts: 1 .. 254, then %d", IS_RESULTS_REASON_OTHER);
    is_reason_table_free(&table);
    /* a failed point with code 7 (the 7th text), stored and verified */
    double outputs[4] = {NAN, -1, -1, -1};
    uint8_t status = IS_POINT_FAILED_CHECK, code = 7;
    CU_ASSERT_FATAL(is_results_write(r, 3, 1, outputs, 1, &status, &code, &err) == IS_OK);
    uint64_t stored = 0;
    is_code rc = is_verify_points(r, MPI_COMM_SELF, NULL, &stored, &err);
    CHECK(rc == IS_OK && stored == 30, "the failed point's record: %s", err.message);
    is_results_close(&r, NULL);
    CU_ASSERT_FATAL(is_results_open(path, MPI_COMM_SELF, IS_RESULTS_WRITE, &r, &err) == IS_OK);
    CU_ASSERT_FATAL(is_reason_table_init(&table, r, 0, &err) == IS_OK);
    const char *text = is_reason_table_text(&table, 7);
    CHECK(table.count == IS_RESULTS_REASON_OTHER - 1 && table.other_written && text &&
              strcmp(text, "reason number 6") == 0,
          "read back: %u texts, code 7 is '%s'", table.count, text ? text : "(none)");
    is_reason_table_free(&table);
    /* the code flipped: the point's checksum finds it, in /run/reason */
    code = 7 ^ 16;
    CU_ASSERT_FATAL(is_results_write_reasons(r, 3, 1, &code, &err) == IS_OK);
    rc = is_verify_points(r, MPI_COMM_SELF, NULL, &stored, &err);
    CHECK(rc == IS_DAMAGED && strstr(err.message, "point 3") &&
              strstr(err.message, "its value of /run/reason differs in one bit") &&
              strstr(err.message, "bit 4 "),
          "a changed reason code: %s: %s", is_code_name(rc), err.message);
    is_results_close(&r, NULL);
    is_job_free(&job);
    unlink(path);
}

static void test_stop_watch_alone(void)
{
    is_stop *stop = NULL;
    is_error err;
    CU_ASSERT_FATAL(is_stop_begin(MPI_COMM_NULL, &stop, &err) == IS_OK);
    CHECK(!is_stop_poll(stop), "a stop before any signal");
    is_signals_raise_for_test(SIGTERM);
    CHECK(is_stop_poll(stop), "no stop after SIGTERM");
    is_code rc = is_stop_end(&stop, IS_OK, "the test", &err);
    CHECK(rc == IS_INTERRUPTED && strstr(err.message, "signal 15 during the test"), "%s: %s",
          is_code_name(rc), err.message);
    CU_ASSERT_FATAL(is_stop_begin(MPI_COMM_NULL, &stop, &err) == IS_OK);
    rc = is_stop_end(&stop, IS_DAMAGED, "the test", &err);
    CHECK(rc == IS_DAMAGED, "a definite failure gave way to the stop: %s", is_code_name(rc));
    is_signals_raise_for_test(0);
}

void suite_integrity(void)
{
    CU_pSuite suite = CU_add_suite("integrity", suite_init, suite_clean);
    CU_add_test(suite, "CRC-32C known answers and chaining", test_crc_known_answers);
    CU_add_test(suite, "CRC-32C of numbers and indices", test_crc_numbers);
    CU_add_test(suite, "single-bit errors have distinct syndromes", test_crc_single_bits_distinct);
    CU_add_test(suite, "a file's damage is found and named", test_file_damage_found);
    CU_add_test(suite, "the stop watch of one process", test_stop_watch_alone);
    CU_add_test(suite, "every failed point's reason is kept", test_reasons_kept);
}
