/* main.c: the impactsweep command line: run, eval, trace, models, info, merge, version,
 * help (its texts in help.c). */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/base/collective.h"
#include "../core/base/numtext.h"
#include "../core/base/progress.h"
#include "../core/base/provenance.h"
#include "../core/base/signals.h"
#include "../core/base/suggest.h"
#include "../core/contract/conformance.h"
#include "../core/contract/convergence.h"
#include "../core/contract/engine.h"
#include "../core/contract/evaluator.h"
#include "../core/contract/model_text.h"
#include "../core/contract/plugin.h"
#include "../core/job/job.h"
#include "../core/job/validate.h"
#include "../core/run/failures.h"
#include "../core/run/merge.h"
#include "../core/run/run.h"
#include "../core/run/summary.h"
#include "../core/run/verify_run.h"
#include "../core/store/results.h"
#include "../core/store/verify.h"
#include "../models/registry.h"
#include "describe.h"
#include "estimate.h"
#include "eval.h"
#include "fit.h"
#include "help.h"
#include "launcher.h"
#include "pieces_plan.h"
#include "point.h"
#include "trace.h"
#include "trace_check.h"

/* Started by an MPI launcher (mpirun, mpiexec, srun)? Then MPI must be initialised even
 * for commands that can do without it. */
static int under_mpi_launcher(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK", "PMI_SIZE",
                                       "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

/* Open MPI's own MPI-IO (OMPIO) aborts on long paths and long file names (its
 * shared-file-pointer component builds fixed-size names from them); ROMIO, the MPI-IO
 * HDF5 is tested with, does not. Unless the user chose, use ROMIO. */
static void prefer_romio(void)
{
    setenv("OMPI_MCA_io", "^ompio", 0);
}

static void mpi_start(int *argc, char ***argv)
{
    prefer_romio();
    int provided;
    /* FUNNELED: the result file's lock has a heartbeat thread, which never calls MPI */
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

static int fail(const is_error *err)
{
    fprintf(stderr, "impactsweep: %s\n", err->message);
    return is_code_exit_status(err->code);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "impactsweep: ");
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    is_cli_usage(stderr);
    return is_code_exit_status(IS_USAGE);
}

/* --- models ---------------------------------------------------------------------- */

/* The models a command can use: the built-in ones and the plug-ins that
 * IMPACTSWEEP_MODEL_PATH names (opened only when a model that is not built in is asked
 * for; warnings about unusable ones from rank 0 alone). */
static is_code open_models(is_models **models, int quiet, is_error *err)
{
    return is_models_create(models, is_registry_models(),
                            IS_MODELS_LOAD | IS_MODELS_SEARCH | (quiet ? IS_MODELS_QUIET : 0u),
                            err);
}

/* MODEL on the command line: a model's name, or the path of a plug-in library. */
static is_code find_model_arg(is_models *models, const char *arg, const is_model **model,
                              is_error *err)
{
    if (is_models_is_path(arg))
        return is_models_load(models, arg, model, err);
    return is_models_lookup(models, arg, model, err);
}

/* `models --check`: a plug-in's eval_batch in an evaluator process of its own, every call
 * with a fresh one (a fresh workspace), guarded around its whole arrays, every breach an
 * error; a built-in model's in this process, guarded the same way. */
typedef struct check_runner {
    const is_models *models;
    double timeout; /* seconds a point may take (a plug-in's) */
} check_runner;

static is_code evaluate_for_check(void *context, const is_model *m, const double *points,
                                  size_t count, double *outputs, uint8_t *status, is_error *err)
{
    const check_runner *r = context;
    const char *sha256 = NULL;
    const char *library = is_models_library(r->models, m, &sha256);
    is_evaluator_config config = {.model = m,
                                  .library = library,
                                  .sha256 = sha256,
                                  .contained = library != NULL,
                                  .point_timeout = library ? r->timeout : 0,
                                  .capacity = count,
                                  .stop = is_signals_flag(),
                                  .strict = 1};
    is_evaluator *ev = NULL;
    is_code rc = is_evaluator_create(&ev, &config, err);
    if (rc == IS_OK)
        memcpy(is_evaluator_points(ev), points, count * m->param_count * sizeof *points);
    size_t refused = 0;
    is_error why;
    is_error_clear(&why);
    if (rc == IS_OK && !outputs) {
        rc = is_evaluator_validate(ev, 0, count, &refused, &why, err);
        if (rc == IS_OK && refused < count)
            rc = is_error_set(err, why.code == IS_PARAM ? IS_PARAM : IS_PLUGIN, "%s", why.message);
    } else if (rc == IS_OK) {
        const double *out;
        const uint8_t *st;
        rc = is_evaluator_eval(ev, count, &out, &st, err);
        if (rc == IS_OK) {
            memcpy(outputs, out, count * is_model_value_count(m) * sizeof *out);
            memcpy(status, st, count);
        }
    }
    is_evaluator_free(&ev);
    return rc;
}

static int cmd_models(int argc, char **argv)
{
    const char *name = NULL;
    int check = 0, json = 0;
    check_runner runner = {.timeout = 60};
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc &&
                 (runner.timeout = strtod(argv[i + 1], &end)) > 0 && *end == '\0')
            i++;
        else if (argv[i][0] == '-' || name)
            return usage_error("models takes one MODEL, --json, --check and --timeout SECONDS, not "
                               "'%s'",
                               argv[i]);
        else
            name = argv[i];
    }
    if (check && !name)
        return usage_error("models --check needs a MODEL%s", "");
    if (json && (!name || check))
        return usage_error("models --json describes one MODEL (and no --check)%s", "");
    is_models *models = NULL;
    is_error err;
    is_error_clear(&err);
    const is_model *m = NULL;
    is_code rc = open_models(&models, 0, &err);
    if (rc == IS_OK && name)
        rc = find_model_arg(models, name, &m, &err);
    else if (rc == IS_OK)
        is_models_open_all(models);
    if (rc == IS_OK && check) {
        runner.models = models;
        is_signals_install();
        rc = is_conformance_behaviour(m, evaluate_for_check, &runner, &err);
        char converges[256] = "";
        if (rc == IS_OK)
            rc = is_convergence_check(m, evaluate_for_check, &runner, converges,
                                      sizeof converges, &err);
        char traced[160] = "";
        if (rc == IS_OK) /* (its trace: trace_check.c) */
            rc = is_cli_trace_check(m, is_models_library(models, m, NULL) != NULL, runner.timeout,
                                    evaluate_for_check, &runner, traced, sizeof traced, &err);
        const char *built = is_models_contract(models, m);
        if (rc == IS_OK)
            printf("%s: keeps the model contract (version %d.%d%s%s%s): its table, and "
                   "eval_batch on admissible points alone, in a batch and twice, within its "
                   "arrays%s%s\n",
                   m->name, IS_MODEL_ABI_VERSION, IS_MODEL_ABI_MINOR,
                   built ? "; the plug-in was built against " : "", built ? built : "",
                   built ? ", read as this one" : "", converges, traced);
    } else if (rc == IS_OK && m && json) {
        const char *sha256 = NULL;
        is_cli_describe_json(stdout, m, is_models_library(models, m, &sha256));
    } else if (rc == IS_OK && m) {
        is_cli_describe_text(models, m);
    } else if (rc == IS_OK) {
        for (const is_model *const *each = is_models_list(models); *each; each++) {
            is_cli_describe_text(models, *each);
            if (each[1])
                printf("\n");
        }
    }
    is_models_free(&models);
    return rc == IS_OK ? 0 : fail(&err);
}

/* --- eval (eval.c) ------------------------------------------------------------------ */

static int cmd_eval(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("eval needs a model name%s", "");
    is_models *models = NULL;
    const is_model *m = NULL;
    is_error model_err;
    is_code found = open_models(&models, 0, &model_err);
    if (found == IS_OK)
        found = find_model_arg(models, argv[1], &m, &model_err);
    if (found != IS_OK) {
        is_models_free(&models);
        return fail(&model_err);
    }
    /* --timeout SECONDS: a point is killed past it (the model then runs contained);
     * -n N: the stream on N worker processes */
    double timeout = 0;
    long workers = 1;
    int kept = 2;
    for (int i = 2; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--ranks") == 0) {
            if (i + 1 >= argc || (workers = strtol(argv[i + 1], &end, 10)) < 1 || *end ||
                workers > 256) {
                is_models_free(&models);
                return usage_error("eval -n takes a number of processes from 1 to 256, not "
                                   "'%s'",
                                   i + 1 < argc ? argv[i + 1] : "");
            }
            i++;
            continue;
        }
        if (strcmp(argv[i], "--timeout") != 0) {
            argv[kept++] = argv[i];
            continue;
        }
        if (i + 1 >= argc || !((timeout = strtod(argv[i + 1], &end)) > 0) || *end) {
            is_models_free(&models);
            return usage_error("eval --timeout takes seconds > 0%s", "");
        }
        i++;
    }
    argc = kept;
    const char *sha256 = NULL;
    const char *library = is_models_library(models, m, &sha256);
    is_evaluator_config config = {.model = m,
                                  .library = library,
                                  .sha256 = sha256,
                                  .contained = library != NULL || timeout > 0,
                                  .point_timeout = timeout};
    int stream = argc == 3 && strcmp(argv[2], "-") == 0; /* points from standard input */
    if (workers > 1 && !stream) {
        is_models_free(&models);
        return usage_error("eval -n N evaluates a stream (eval MODEL - -n N)%s", "");
    }
    int status = stream ? is_cli_eval_pool(&config, STDIN_FILENO, "<stdin>", (int)workers)
                        : is_cli_eval_args(&config, argc, argv);
    is_models_free(&models);
    return status;
}

/* --- trace (trace.c), with the models eval finds ---------------------------------- */

static is_code find_model_for_trace(void *models, const char *name, const is_model **model,
                                    int *contained, is_error *err)
{
    is_code rc = find_model_arg(models, name, model, err);
    *contained = rc == IS_OK && is_models_library(models, *model, NULL) != NULL;
    return rc;
}

static int cmd_trace(int argc, char **argv)
{
    is_models *models = NULL;
    is_error err;
    if (open_models(&models, 0, &err) != IS_OK)
        return fail(&err);
    int status = is_cli_trace(argc, argv, find_model_for_trace, models);
    is_models_free(&models);
    return status;
}

/* --- info -------------------------------------------------------------------------- */

/* `info --verify`: every checksum of the file (collective where comm is); *line says what
 * was checked. */
static is_code verify_file(const char *path, MPI_Comm comm, char *line, size_t size, is_error *err)
{
    int rank = 0;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_rank(comm, &rank);
    is_results *r = NULL;
    is_code rc =
        is_collective_agree(is_results_open(path, comm, IS_RESULTS_READ, &r, err), comm, err);
    uint64_t stored = 0;
    if (rc == IS_OK)
        rc = is_verify_file(r, NULL, comm, NULL, &stored, err);
    if (rc == IS_OK && rank == 0)
        snprintf(line, size,
                 "verified: the metadata, attributes and coordinates, and the %llu stored "
                 "points of %llu, match their checksums",
                 (unsigned long long)stored, (unsigned long long)is_results_point_count(r));
    is_results_close(&r, NULL);
    return rc;
}

/* `info`: the self-verification summary (verify_run.h), read by this process alone. */
static void print_verification(const char *path)
{
    is_results *r = NULL;
    is_error err;
    char *text = NULL;
    uint64_t beyond = 0;
    if (is_results_open(path, MPI_COMM_NULL, IS_RESULTS_READ, &r, &err) == IS_OK &&
        is_verify_run_describe(r, NULL, &text, &beyond, &err) == IS_OK)
        printf("%s", text ? text : "");
    else
        printf("verification: unreadable: %s\n", err.message);
    free(text);
    is_results_close(&r, NULL);
}

/* Under `info`: the failed points (failures.h), all or the first INFO_FAILURES. */
#define INFO_FAILURES 5
static is_code print_failures(const char *path, int all, is_code rc, is_error *err)
{
    /* (no flush before: what info prints leaves in one write, so that a reader that stops
     * at the line it wants, grep -q, does not cut it short) */
    char *text = NULL;
    size_t size = 0;
    FILE *buffer = all ? stdout : open_memstream(&text, &size);
    uint64_t failed = 0;
    is_error mine;
    is_code got = buffer ? is_failures_print(path, all ? 0 : INFO_FAILURES, buffer, &failed, &mine)
                         : IS_OK;
    if (buffer && buffer != stdout)
        fclose(buffer);
    if (!all && failed > 0 && text)
        printf("failed points, with the reasons the engine failed them (%llu):\n%s",
               (unsigned long long)failed, text);
    else if (all && failed == 0 && got == IS_OK)
        printf("no failed points\n");
    free(text);
    if (got != IS_OK && rc == IS_OK) {
        *err = mine;
        return got;
    }
    return rc;
}

static int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    int log = 0, verify = 0, failures = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--log") == 0)
            log = 1;
        else if (strcmp(argv[i], "--failures") == 0)
            failures = 1;
        else if (strcmp(argv[i], "--verify") == 0)
            verify = 1;
        else if (argv[i][0] == '-' || path)
            return usage_error("info takes one result file, --log, --failures and --verify, not "
                               "'%s'", argv[i]);
        else
            path = argv[i];
    }
    if (!path)
        return usage_error("info needs one result file%s", "");
    int parallel = under_mpi_launcher();
    if (parallel)
        mpi_start(&argc, &argv);
    MPI_Comm comm = parallel ? MPI_COMM_WORLD : MPI_COMM_NULL;
    is_error err;
    is_summary *summary = NULL;
    is_code rc = is_summary_collect(path, comm, &summary, &err);
    char verified[256] = "";
    if (rc == IS_OK && verify) /* a damaged file is still described, then refused */
        rc = verify_file(path, comm, verified, sizeof verified, &err);
    int rank = 0;
    if (parallel)
        MPI_Comm_rank(comm, &rank);
    if (summary)
        is_summary_print(summary, 0, stdout);
    if (summary && rank == 0) { /* every failed point with --failures, else the first few */
        print_verification(path);
        rc = print_failures(path, failures, rc, &err);
    }
    if (summary && log) /* last, as it has always come */
        is_summary_print_log(summary, stdout);
    if (*verified)
        printf("%s\n", verified);
    if (rc != IS_OK && rank == 0)
        fail(&err);
    is_summary_free(&summary);
    if (parallel)
        MPI_Finalize();
    return is_code_exit_status(rc);
}

/* --- merge ---------------------------------------------------------------------------- */

/* A plug-in's pieces merge without it: the model as the first piece describes it
 * (model_text.h), on every rank; a file from before the description needs the plug-in. */
static is_code describe_pieces_model(is_models *models, const char *piece, MPI_Comm comm,
                                     is_model_described **described, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char library[4096] = "", sha256[80] = "";
    char *table = NULL;
    long long length = 0;
    is_results *r = NULL;
    if (rank == 0 && is_results_open(piece, MPI_COMM_NULL, IS_RESULTS_READ, &r, NULL) == IS_OK) {
        is_results_attribute(r, "model_library", library, sizeof library);
        is_results_attribute(r, "model_library_sha256", sha256, sizeof sha256);
        size_t size = 1 << 20;
        if (*library && (table = calloc(1, size)))
            is_results_attribute(r, "model_table", table, size);
        length = table ? (long long)strlen(table) : 0;
        is_results_close(&r, NULL);
    }
    MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm);
    MPI_Bcast(library, sizeof library, MPI_CHAR, 0, comm);
    MPI_Bcast(sha256, sizeof sha256, MPI_CHAR, 0, comm);
    if (length == 0) {
        free(table);
        return IS_OK; /* built in, or an older file: found as the job names it */
    }
    if (rank != 0 && !(table = calloc(1, (size_t)length + 1)))
        return is_error_set(err, IS_NOMEM, "out of memory");
    MPI_Bcast(table, (int)length + 1, MPI_CHAR, 0, comm);
    is_code rc = is_model_describe(table, described, err);
    free(table);
    if (rc == IS_OK)
        rc = is_models_add_described(models, library, sha256, is_model_described_model(*described),
                                     err);
    return rc;
}

static int cmd_merge(int argc, char **argv)
{
    const char *output = NULL;
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    size_t count = 0;
    int overwrite = 0;
    if (!inputs)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--overwrite") == 0)
            overwrite = 1;
        else if (argv[i][0] == '-') {
            free(inputs);
            return usage_error("unknown option '%s'", argv[i]);
        } else if (!output)
            output = argv[i];
        else
            inputs[count++] = argv[i];
    }
    if (!output || count == 0) {
        free(inputs);
        return usage_error("merge needs an output and at least one input file%s", "");
    }
    is_signals_install();
    mpi_start(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    is_error err;
    uint64_t counts[3] = {0, 0, 0};
    is_models *models = NULL;
    is_model_described *described = NULL;
    is_code rc = open_models(&models, rank != 0, &err);
    if (rc == IS_OK)
        rc = describe_pieces_model(models, inputs[0], MPI_COMM_WORLD, &described, &err);
    rc = is_collective_agree(rc, MPI_COMM_WORLD, &err);
    char report[2048] = "";
    if (rc == IS_OK)
        rc = is_merge(output, inputs, count, overwrite, models, MPI_COMM_WORLD, counts, report,
                      sizeof report, &err);
    is_models_free(&models);
    is_model_described_free(&described);
    free(inputs);
    MPI_Bcast(counts, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int status = is_code_exit_status(rc);
    if (rc != IS_OK && rank == 0)
        fail(&err);
    else if (rank == 0)
        fprintf(stderr,
                "impactsweep: merged %zu files into %s: %llu points done, %llu failed, "
                "%llu pending\n",
                count, output, (unsigned long long)counts[0], (unsigned long long)counts[1],
                (unsigned long long)counts[2]);
    if (rc == IS_OK && rank == 0 && counts[2] != 0) /* the last line says what is missing */
        fprintf(stderr,
                "impactsweep: %s is incomplete (exit status 1): %s. Merge again with "
                "every piece to complete it\n",
                output, report);
    if (rc == IS_OK && counts[2] != 0)
        status = 1;
    MPI_Finalize();
    return status;
}

/* --- run -------------------------------------------------------------------------- */

/* Up to this many points per rank the end of a run prints the field summary (a re-read
 * of the file: about a second at 10^7 points on this class of machine). */
#define SUMMARY_POINTS_PER_RANK 10000000

typedef struct run_args {
    const char *job_path;
    const char **overrides;
    size_t override_count;
    is_run_options options;
    int dry_run;
    int strict;         /* --strict: failed points make exit status 3 */
    int quiet;          /* --quiet: no progress, no report, no summary */
    int progress_given; /* --progress was given */
    const char *ranks;  /* -n N: start mpirun with N ranks */
    uint64_t pieces;    /* --dry-run --pieces N: plan N pieces of equal cost */
    char *owned[2];     /* the texts of --output and --piece as overrides */
} run_args;

static void free_run_args(run_args *a)
{
    free(a->overrides);
    free(a->owned[0]);
    free(a->owned[1]);
}

static is_code add_override(run_args *a, int slot, const char *key, const char *value,
                            is_error *err)
{
    size_t n = strlen(key) + strlen(value) + 1;
    free(a->owned[slot]);
    if (!(a->owned[slot] = malloc(n)))
        return is_error_set(err, IS_NOMEM, "out of memory");
    snprintf(a->owned[slot], n, "%s%s", key, value);
    a->overrides[a->override_count++] = a->owned[slot];
    return IS_OK;
}

static is_code parse_run_args(int argc, char **argv, run_args *a, is_error *err)
{
    memset(a, 0, sizeof *a);
    a->options.live_progress = IS_PROGRESS_AUTO;
    a->overrides = calloc((size_t)argc + 1, sizeof *a->overrides);
    if (!a->overrides)
        return is_error_set(err, IS_NOMEM, "out of memory");
    is_code rc = IS_OK;
    for (int i = 1; i < argc && rc == IS_OK; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--set") == 0 || strcmp(arg, "-s") == 0) {
            if (++i >= argc)
                return is_error_set(err, IS_USAGE, "--set needs section.key=value");
            a->overrides[a->override_count++] = argv[i];
        } else if (strncmp(arg, "--set=", 6) == 0) {
            a->overrides[a->override_count++] = arg + 6;
        } else if (strcmp(arg, "--output") == 0 || strcmp(arg, "-o") == 0) {
            if (++i >= argc)
                return is_error_set(err, IS_USAGE, "--output needs a file name");
            rc = add_override(a, 0, "sweep.output=", argv[i], err);
        } else if (strcmp(arg, "--piece") == 0) {
            if (++i >= argc)
                return is_error_set(err, IS_USAGE, "--piece needs I/N");
            rc = add_override(a, 1, "sweep.piece=", argv[i], err);
        } else if (strcmp(arg, "--resume") == 0) {
            a->options.resume = 1;
        } else if (strcmp(arg, "--overwrite") == 0) {
            a->options.overwrite = 1;
        } else if (strcmp(arg, "--dry-run") == 0) {
            a->dry_run = 1;
        } else if (strcmp(arg, "--strict") == 0) {
            a->strict = 1;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            a->quiet = 1;
        } else if (strcmp(arg, "-n") == 0 || strcmp(arg, "--ranks") == 0) {
            if (++i >= argc || !is_launcher_ranks_valid(argv[i]))
                return is_error_set(err, IS_USAGE, "%s needs a number of ranks from 1 to %ld", arg,
                                    IS_LAUNCHER_MAX_RANKS);
            a->ranks = argv[i];
        } else if (strcmp(arg, "--pieces") == 0) {
            char *end = NULL;
            if (++i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
                a->pieces = strtoull(argv[i], &end, 10);
            if (!end || *end || a->pieces < 1)
                return is_error_set(err, IS_USAGE, "--pieces needs a number of pieces >= 1");
        } else if (strcmp(arg, "--progress") == 0 && i + 1 < argc) {
            const char *mode = argv[++i];
            a->progress_given = 1;
            if (strcmp(mode, "bar") == 0)
                a->options.live_progress = 1;
            else if (strcmp(mode, "lines") == 0)
                a->options.live_progress = 0;
            else
                return is_error_set(err, IS_USAGE, "--progress takes bar or lines, not '%s'", mode);
        } else if (arg[0] == '-') {
            return is_error_set(err, IS_USAGE, "unknown option '%s'", arg);
        } else if (!a->job_path) {
            a->job_path = arg;
        } else {
            return is_error_set(err, IS_USAGE, "more than one job file ('%s', '%s')", a->job_path,
                                arg);
        }
    }
    if (rc != IS_OK)
        return rc;
    if (!a->job_path)
        return is_error_set(err, IS_USAGE, "run needs a job file");
    if (a->options.resume && a->options.overwrite)
        return is_error_set(err, IS_USAGE, "--resume and --overwrite exclude each other");
    if (a->quiet && a->progress_given)
        return is_error_set(err, IS_USAGE, "--quiet and --progress exclude each other");
    if (a->pieces && !a->dry_run)
        return is_error_set(err, IS_USAGE, "--pieces plans pieces in a dry run: add --dry-run");
    if (a->quiet)
        a->options.live_progress = IS_PROGRESS_QUIET;
    return IS_OK;
}

/* Rank 0 reads the job file; every rank parses the same text; all ranks check the grid
 * together. */
/* Every rank loaded the same plug-in library, byte for byte (a node with another copy of
 * it would compute other results under the same file). */
static is_code same_library_everywhere(const is_job *job, MPI_Comm comm, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char mine[65] = "", first[65] = "";
    snprintf(mine, sizeof mine, "%s", job->model_sha256 ? job->model_sha256 : "");
    memcpy(first, mine, sizeof first);
    MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, comm);
    is_code rc = IS_OK;
    if (strcmp(first, mine) != 0)
        rc = is_error_set(err, IS_PLUGIN,
                          "rank %d loaded model %s from %s (sha256 %s), which differs from "
                          "rank 0's library (sha256 %s): every node must see the same file",
                          rank, job->model->name,
                          job->model_library ? job->model_library : "the engine", mine, first);
    return is_collective_agree(rc, comm, err);
}

/* A dry run checks at most this many points of the grid, evenly spread (seconds on one
 * rank: a 10^12-point grid is answered at once); a run checks every point before it
 * computes, shared among its ranks. */
#define DRY_RUN_CHECK_MOST UINT64_C(10000000)

static is_code load_job(const run_args *a, is_models *models, MPI_Comm comm, is_job **job,
                        is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *text = NULL;
    long long length = 0;
    is_code rc = IS_OK;
    if (rank == 0) {
        rc = is_job_read_file(a->job_path, &text, err);
        length = rc == IS_OK ? (long long)strlen(text) : -1;
    }
    rc = is_collective_share(rc, 0, comm, err);
    MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm);
    if (rc != IS_OK) {
        free(text);
        return rc;
    }
    if (rank != 0 && !(text = malloc((size_t)length + 1)))
        rc = is_error_set(err, IS_NOMEM, "out of memory");
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK) {
        MPI_Bcast(text, (int)length + 1, MPI_CHAR, 0, comm);
        rc = is_job_parse(a->job_path, text, a->overrides, a->override_count, models, job, err);
    }
    free(text);
    rc = is_collective_agree(rc, comm, err);
    if (rc == IS_OK)
        rc = same_library_everywhere(*job, comm, err);
    uint64_t points = rc == IS_OK ? (*job)->piece_last - (*job)->piece_first : 0;
    int sampled = a->dry_run && points > DRY_RUN_CHECK_MOST;
    if (rc == IS_OK && rank == 0 && !a->quiet && sampled)
        fprintf(stderr,
                "impactsweep: checking %llu of the %llu points of the grid, evenly spread (a "
                "dry run of a grid this large; a run checks every point)\n",
                (unsigned long long)DRY_RUN_CHECK_MOST, (unsigned long long)points);
    else if (rc == IS_OK && rank == 0 && !a->quiet && points >= IS_RUN_PHASE_NOTE_POINTS)
        fprintf(stderr, "impactsweep: checking the %llu points of the grid\n",
                (unsigned long long)points); /* seconds at 10^8: say what is going on */
    if (rc == IS_OK)
        rc = is_validate_grid_sampled(*job, comm, a->dry_run ? DRY_RUN_CHECK_MOST : UINT64_MAX,
                                      err);
    if (rc != IS_OK)
        is_job_free(job);
    return rc;
}

/* `run --dry-run`'s sample for the cost estimate: at most this many points, for about
 * this long (what `slurm/submit` adds to a submission, which checks the job this way). */
#define ESTIMATE_POINTS 1024
#define ESTIMATE_SECONDS 3.0

/* `run --dry-run`: what the run would compute and write. */
static void print_plan(const is_job *job, int ranks)
{
    uint64_t points = job->piece_last - job->piece_first, bytes = 1;
    const is_model *m = job->model;
    for (size_t o = 0; o < m->output_count; o++)
        bytes += m->outputs[o].type == IS_OUTPUT_REAL  ? 8
                 : m->outputs[o].type == IS_OUTPUT_INT ? 4
                                                       : 1;
    double size = (double)is_results_size(job);
    printf("job:          %s (model %s)\n", job->source, m->name);
    if (job->model_library) /* (slurm/submit names a plug-in by it) */
        printf("library:      %s\n", job->model_library);
    printf("points:       %llu", (unsigned long long)points);
    if (job->piece_count > 1)
        printf(" (piece %llu/%llu of %llu)", (unsigned long long)job->piece_index,
               (unsigned long long)job->piece_count, (unsigned long long)job->grid.point_count);
    char size_text[32];
    printf("\nbytes/point:  %llu\nfile size:    %s\noutput:       %s\nranks:        %d\n"
           "unit:         %s\n",
           (unsigned long long)bytes, is_bytestext(size_text, sizeof size_text, size),
           job->output, ranks,
           job->unit_size ? "fixed size" : "sized by time");
    if (points > DRY_RUN_CHECK_MOST)
        printf("check:        %llu points evenly spread over the %llu admissible (a run "
               "checks every point)\n",
               (unsigned long long)DRY_RUN_CHECK_MOST, (unsigned long long)points);
    else
        printf("check:        every point admissible\n");
}

/* The phases' times, on stderr. */
static void report_times(const is_run_summary *s)
{
    const is_sched_result *r = &s->sched;
    char verified[160] = "";
    if (s->resumed)
        snprintf(verified, sizeof verified,
                 "; the scan checked the checksums of %llu stored points in %.3f s",
                 (unsigned long long)s->verified, s->verify_seconds);
    fprintf(stderr,
            "impactsweep: times: %s %.3f s, computing %.3f s; rank 0 answered %llu "
            "requests in %.3f s (%.2f%% of the run)%s\n",
            s->resumed ? "resume scan" : "creating the file",
            s->resumed ? s->scan_seconds : s->create_seconds, r->seconds,
            (unsigned long long)r->requests, r->serve_seconds,
            r->seconds > 0 ? 100.0 * r->serve_seconds / r->seconds : 0.0, verified);
}

/* The run's last line: what the file holds, failed points said plainly. */
static void report_outcome(const run_args *a, const is_job *job, const is_run_summary *s, int size,
                           is_code rc)
{
    const is_sched_result *r = &s->sched;
    char inferred[64] = "", failed[256] = "";
    if (job->refine_levels > 0)
        snprintf(inferred, sizeof inferred, ", %llu inferred by the refinement",
                 (unsigned long long)s->tally[IS_POINT_INFERRED]);
    uint64_t all = s->counts[0] + s->counts[1] + s->counts[2];
    if (s->counts[1] > 0)
        snprintf(failed, sizeof failed,
                 "; %s%llu point%s FAILED (`impactsweep info %s` counts them by reason%s)",
                 s->counts[1] == all ? "every point failed: " : "",
                 (unsigned long long)s->counts[1], s->counts[1] == 1 ? "" : "s", job->output,
                 a->strict ? "" : "; --strict makes this exit status 3");
    fprintf(stderr,
            "impactsweep: %s %s: %llu points done, %llu failed, %llu pending%s; "
            "this run computed %llu in %.2f s on %d rank%s (%llu units, target %.3g s each)%s\n",
            rc == IS_OK ? "wrote" : "stopped, kept", job->output, (unsigned long long)s->counts[0],
            (unsigned long long)s->counts[1], (unsigned long long)s->counts[2], inferred,
            (unsigned long long)(r->done + r->failed), r->seconds, size, size == 1 ? "" : "s",
            (unsigned long long)r->units, r->unit_seconds, failed);
}

/* The field summary of a complete run, read by all ranks together; on a large grid that
 * re-read is left to `info`, so that a run's end costs O(1). */
static void print_field_summary(const is_job *job, int rank, int size)
{
    uint64_t points = job->piece_last - job->piece_first;
    if (points / (uint64_t)size > SUMMARY_POINTS_PER_RANK) {
        if (rank == 0)
            fprintf(stderr, "impactsweep: the field summary of %s: impactsweep info %s\n",
                    job->output, job->output);
        return;
    }
    is_summary *info = NULL;
    is_error info_err;
    if (is_summary_collect(job->output, MPI_COMM_WORLD, &info, &info_err) != IS_OK) {
        if (rank == 0)
            fprintf(stderr, "impactsweep: %s\n", info_err.message);
    } else if (info) {
        is_summary_print(info, 0, stdout);
        fflush(stdout); /* before the last lines, on stderr */
    }
    is_summary_free(&info);
}

/* `run --dry-run` on rank 0: the plan, and the cost estimate (or the pieces' cut). */
static is_code dry_run(const run_args *a, const is_job *job, int size, is_error *err)
{
    is_code rc = is_run_check_output(job, a->job_path, a->options.overwrite, err);
    if (rc == IS_OK)
        print_plan(job, size);
    is_estimate estimate;
    if (rc == IS_OK && a->pieces)
        rc = is_pieces_plan(job, a->pieces, size, stdout, err);
    else if (rc == IS_OK)
        rc = is_estimate_cost(job, ESTIMATE_SECONDS, ESTIMATE_POINTS, &estimate, err);
    if (rc == IS_OK && !a->pieces)
        is_estimate_print(&estimate, job->piece_last - job->piece_first, size, stdout);
    if (rc == IS_OK && job->refine_levels > 0)
        printf("refinement:   %u levels: the estimate is for every point, an upper "
               "bound (a refined map computes a fraction of them, 1 to 15 %% on the "
               "README's maps)\n",
               job->refine_levels);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    run_args a;
    is_error err;
    is_error_clear(&err);
    is_code rc = parse_run_args(argc, argv, &a, &err);
    if (rc == IS_OK && a.ranks && !under_mpi_launcher()) {
        free_run_args(&a);
        return is_launcher_run(argc, argv, a.ranks);
    }
    is_signals_install(); /* before MPI_Init: batch systems may signal early */
    mpi_start(&argc, &argv);
    is_launcher_mark_started();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    is_job *job = NULL;
    is_models *models = NULL;
    if (rc == IS_OK)
        rc = open_models(&models, rank != 0, &err);
    rc = is_collective_agree(rc, MPI_COMM_WORLD, &err);
    if (rc == IS_OK)
        rc = load_job(&a, models, MPI_COMM_WORLD, &job, &err);
    is_run_summary summary;
    memset(&summary, 0, sizeof summary);
    if (rc == IS_OK && a.dry_run) {
        if (rank == 0)
            rc = dry_run(&a, job, size, &err);
        rc = is_collective_share(rc, 0, MPI_COMM_WORLD, &err);
    } else if (rc == IS_OK) {
        if (rank == 0 && !a.quiet)
            fprintf(stderr, "impactsweep: %s: model %s, %llu points, %d rank%s, writing %s%s\n",
                    a.job_path, job->model->name,
                    (unsigned long long)(job->piece_last - job->piece_first), size,
                    size == 1 ? "" : "s", job->output, a.options.resume ? " (resume)" : "");
        rc = is_run(job, a.job_path, &a.options, MPI_COMM_WORLD, &summary, &err);
        /* the counts (rank 0's) and whether a stop came meanwhile, on every rank: all or
         * none enter the collective read, and all exit with the same status */
        int stopping = is_signals_pending() != 0;
        MPI_Allreduce(MPI_IN_PLACE, &stopping, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Bcast(summary.counts, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (!a.quiet && rc == IS_OK && !stopping)
            print_field_summary(job, rank, size);
        if (rank == 0 && !a.quiet && (rc == IS_OK || rc == IS_INTERRUPTED)) {
            report_times(&summary);
            fprintf(stderr, "%s", summary.verification); /* (self-verification) */
            report_outcome(&a, job, &summary, size, rc);
        }
        if (rc == IS_OK && a.strict && summary.counts[1] > 0)
            rc = is_error_set(
                &err, IS_POINTS_FAILED,
                "--strict: %llu of the %llu points of %s failed (status "
                "failed_*; `impactsweep info %s` counts them by reason)",
                (unsigned long long)summary.counts[1],
                (unsigned long long)(summary.counts[0] + summary.counts[1] + summary.counts[2]),
                job->output, job->output);
        MPI_Bcast(&summary.verify_beyond, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (rc == IS_OK && a.strict && summary.verify_beyond > 0)
            rc = is_error_set(&err, IS_POINTS_FAILED,
                              "--strict: %llu verified points of %s have an output beyond "
                              "verify_tolerance (`impactsweep info %s` shows the discrepancies)",
                              (unsigned long long)summary.verify_beyond, job->output,
                              job->output);
    }
    if (rank == 0 && rc != IS_OK)
        fail(&err);
    int status = is_code_exit_status(rc);
    is_job_free(&job);
    is_models_free(&models); /* after the job, whose model may live in a plug-in */
    free_run_args(&a);
    MPI_Finalize();
    return status;
}

static int cmd_version(void)
{
    is_provenance prov;
    is_provenance_collect(&prov, 1);
    printf("impactsweep %s (%s)\n%s, HDF5 %s, SUNDIALS %s, inih %s\nbuild: %s\n",
           prov.engine_version, prov.git_commit, prov.mpi_library, prov.hdf5_version,
           prov.sundials_version, prov.inih_version, prov.build);
    return 0;
}

int main(int argc, char **argv)
{
    /* a contained model's evaluator process: this executable again, nothing else of it */
    if (argc > 1 && strcmp(argv[1], IS_EVALUATOR_COMMAND) == 0)
        return is_evaluator_process_main(argc, argv, is_registry_models());
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported through is_error */
    if (argc < 2) {
        is_cli_usage(stderr);
        return is_code_exit_status(IS_USAGE);
    }
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0)
        command = "help";
    if (strcmp(command, "--version") == 0 || strcmp(command, "-V") == 0)
        command = "version";
    if (strcmp(command, "help") == 0)
        return is_cli_help(argc - 1, argv + 1, is_registry_models());
    /* `impactsweep COMMAND --help` is the same as `impactsweep help COMMAND` */
    if (is_cli_wants_help(argc - 1, argv + 1) && is_cli_command_help(command, stdout) == 0)
        return 0;
    if (strcmp(command, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(command, "eval") == 0)
        return cmd_eval(argc - 1, argv + 1);
    if (strcmp(command, "trace") == 0)
        return cmd_trace(argc - 1, argv + 1);
    if (strcmp(command, "models") == 0)
        return cmd_models(argc - 1, argv + 1);
    if (strcmp(command, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(command, "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(command, "fit") == 0)
        return is_cli_fit(argc - 1, argv + 1);
    if (strcmp(command, "version") == 0)
        return cmd_version();
    return is_cli_unknown_command(argc, argv);
}
