/* main.c: the impactsweep command line: run, eval, models, info, version. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/job.h"
#include "../core/merge.h"
#include "../core/provenance.h"
#include "../core/run.h"
#include "../core/signals.h"
#include "../core/summary.h"
#include "../models/registry.h"

static const char usage_text[] =
    "usage: impactsweep run JOB.ini [--set section.key=value ...] [--output FILE]\n"
    "                       [--piece I/N] [--resume | --overwrite] [--progress bar|lines]\n"
    "       impactsweep eval MODEL [name=value ...]\n"
    "       impactsweep models [MODEL]\n"
    "       impactsweep info FILE\n"
    "       impactsweep merge OUTPUT PIECE.h5 ... [--overwrite]\n"
    "       impactsweep version\n"
    "\n"
    "run under `mpirun -n N` for N ranks (rank 0 coordinates and computes).\n"
    "exit status: 0 done, 1 run failed (file resumable), 2 bad input (nothing\n"
    "touched), 75 interrupted by a signal (continue with --resume).\n";

static int fail(const is_error *err)
{
    fprintf(stderr, "impactsweep: %s\n", err->message);
    return is_code_exit_status(err->code);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "impactsweep: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return is_code_exit_status(IS_USAGE);
}

/* --- models ---------------------------------------------------------------------- */

static void print_model(const is_model *m)
{
    printf("%s: %s\n  parameters:\n", m->name, m->description);
    for (size_t p = 0; p < m->param_count; p++) {
        const is_param *param = &m->params[p];
        char range[256], def[64];
        is_param_format_range(param, range, sizeof range);
        if (isnan(param->default_value))
            snprintf(def, sizeof def, "(required)");
        else if (param->type == IS_PARAM_CHOICE)
            snprintf(def, sizeof def, "%s", param->choices[(int)param->default_value]);
        else
            snprintf(def, sizeof def, "%.10g", param->default_value);
        printf("    %-14s default %-12s admissible %-26s %s [%s]\n", param->name, def, range,
               param->meaning, param->unit);
    }
    printf("  outputs:\n");
    for (size_t o = 0; o < m->output_count; o++) {
        const is_output *out = &m->outputs[o];
        static const char *const types[] = {"real", "integer", "category"};
        printf("    %-14s %-9s %s [%s]", out->name, types[out->type], out->long_name, out->unit);
        if (out->type == IS_OUTPUT_CATEGORY) {
            printf(" (");
            for (int c = 0; out->categories[c]; c++)
                printf("%s%d=%s", c ? ", " : "", c, out->categories[c]);
            printf(")");
        }
        printf("\n");
    }
}

static int cmd_models(int argc, char **argv)
{
    if (argc > 1) {
        const is_model *m = is_registry_find(argv[1]);
        if (!m)
            return usage_error("unknown model '%s' (see `impactsweep models`)", argv[1]);
        print_model(m);
        return 0;
    }
    for (const is_model *const *m = is_registry_models(); *m; m++) {
        print_model(*m);
        if (m[1])
            printf("\n");
    }
    return 0;
}

/* --- eval ------------------------------------------------------------------------- */

static void print_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void print_json_number(double v)
{
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

static int cmd_eval(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("eval needs a model name%s", "");
    const is_model *m = is_registry_find(argv[1]);
    if (!m)
        return usage_error("unknown model '%s' (see `impactsweep models`)", argv[1]);
    double *point = malloc(m->param_count * sizeof *point);
    double *outputs = malloc((m->output_count ? m->output_count : 1) * sizeof *outputs);
    if (!point || !outputs) {
        free(point);
        free(outputs);
        fprintf(stderr, "impactsweep: out of memory\n");
        return 1;
    }
    for (size_t p = 0; p < m->param_count; p++)
        point[p] = m->params[p].default_value;
    is_error err;
    is_error_clear(&err);
    is_code rc = IS_OK;
    for (int i = 2; i < argc && rc == IS_OK; i++) {
        char origin[64], name[128];
        snprintf(origin, sizeof origin, "argument %d", i);
        const char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof name) {
            rc = is_error_set(&err, IS_USAGE, "%s: '%s': expected name=value", origin, argv[i]);
            break;
        }
        memcpy(name, argv[i], (size_t)(eq - argv[i]));
        name[eq - argv[i]] = '\0';
        int p = is_model_param_index(m, name);
        rc = is_job_parse_param_value(m, origin, name, eq + 1, p >= 0 ? &point[p] : point, &err);
    }
    for (size_t p = 0; p < m->param_count && rc == IS_OK; p++)
        if (isnan(point[p]))
            rc = is_error_set(&err, IS_PARAM, "parameter %s has no default: give %s=VALUE",
                              m->params[p].name, m->params[p].name);
    if (rc == IS_OK && m->validate)
        rc = m->validate(point, &err);
    void *ws = NULL;
    uint8_t status = IS_POINT_PENDING;
    for (size_t o = 0; o < m->output_count; o++)
        outputs[o] = NAN;
    if (rc == IS_OK && m->workspace_create)
        rc = m->workspace_create(&ws, &err);
    if (rc == IS_OK)
        rc = m->eval_batch(ws, point, 1, outputs, &status, &err);
    if (ws && m->workspace_free)
        m->workspace_free(ws);
    if (rc != IS_OK) {
        free(point);
        free(outputs);
        return fail(&err);
    }
    printf("{\"model\": ");
    print_json_string(m->name);
    printf(", \"parameters\": {");
    for (size_t p = 0; p < m->param_count; p++) {
        printf("%s", p ? ", " : "");
        print_json_string(m->params[p].name);
        printf(": ");
        if (m->params[p].type == IS_PARAM_CHOICE)
            print_json_string(m->params[p].choices[(int)point[p]]);
        else
            print_json_number(point[p]);
    }
    printf("}, \"status\": ");
    print_json_string(is_point_status_name(status));
    printf(", \"outputs\": {");
    for (size_t o = 0; o < m->output_count; o++) {
        const is_output *out = &m->outputs[o];
        printf("%s", o ? ", " : "");
        print_json_string(out->name);
        printf(": ");
        int k = (int)outputs[o];
        if (out->type == IS_OUTPUT_CATEGORY && isfinite(outputs[o]) && k >= 0 &&
            k < is_output_category_count(out))
            print_json_string(out->categories[k]);
        else
            print_json_number(outputs[o]);
    }
    printf("}}\n");
    free(point);
    free(outputs);
    return status == IS_POINT_DONE ? 0 : 1;
}

/* --- info -------------------------------------------------------------------------- */

static int cmd_info(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("info needs one result file%s", "");
    is_error err;
    if (is_summary_print(argv[1], stdout, &err) != IS_OK)
        return fail(&err);
    return 0;
}

/* --- merge ---------------------------------------------------------------------------- */

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
    is_error err;
    uint64_t counts[3] = {0, 0, 0};
    is_code rc = is_merge(output, inputs, count, overwrite, counts, &err);
    free(inputs);
    if (rc != IS_OK)
        return fail(&err);
    fprintf(stderr, "impactsweep: merged %zu files into %s: %llu points done, %llu failed, "
            "%llu pending\n", count, output, (unsigned long long)counts[0],
            (unsigned long long)counts[1], (unsigned long long)counts[2]);
    return counts[2] == 0 ? 0 : 1;
}

/* --- run ---------------------------------------------------------------------------- */

typedef struct run_args {
    const char *job_path;
    const char **overrides;
    size_t override_count;
    is_run_options options;
    char output_override[4096]; /* the texts of --output and --piece as overrides */
    char piece_override[128];
} run_args;

static is_code parse_run_args(int argc, char **argv, run_args *a, is_error *err)
{
    memset(a, 0, sizeof *a);
    a->options.live_progress = -1;
    a->overrides = calloc((size_t)argc + 1, sizeof *a->overrides);
    if (!a->overrides)
        return is_error_set(err, IS_NOMEM, "out of memory");
    for (int i = 1; i < argc; i++) {
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
            snprintf(a->output_override, sizeof a->output_override, "sweep.output=%s", argv[i]);
            a->overrides[a->override_count++] = a->output_override;
        } else if (strcmp(arg, "--piece") == 0) {
            if (++i >= argc)
                return is_error_set(err, IS_USAGE, "--piece needs I/N");
            snprintf(a->piece_override, sizeof a->piece_override, "sweep.piece=%s", argv[i]);
            a->overrides[a->override_count++] = a->piece_override;
        } else if (strcmp(arg, "--resume") == 0) {
            a->options.resume = 1;
        } else if (strcmp(arg, "--overwrite") == 0) {
            a->options.overwrite = 1;
        } else if (strcmp(arg, "--progress") == 0 && i + 1 < argc) {
            const char *mode = argv[++i];
            if (strcmp(mode, "bar") == 0)
                a->options.live_progress = 1;
            else if (strcmp(mode, "lines") == 0)
                a->options.live_progress = 0;
            else
                return is_error_set(err, IS_USAGE, "--progress takes bar or lines, not '%s'",
                                    mode);
        } else if (arg[0] == '-') {
            return is_error_set(err, IS_USAGE, "unknown option '%s'", arg);
        } else if (!a->job_path) {
            a->job_path = arg;
        } else {
            return is_error_set(err, IS_USAGE, "more than one job file ('%s', '%s')",
                                a->job_path, arg);
        }
    }
    if (!a->job_path)
        return is_error_set(err, IS_USAGE, "run needs a job file");
    if (a->options.resume && a->options.overwrite)
        return is_error_set(err, IS_USAGE, "--resume and --overwrite exclude each other");
    return IS_OK;
}

/* Rank 0 reads the job file; every rank parses the same text. */
static is_code load_job(const run_args *a, MPI_Comm comm, is_job **job, is_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *text = NULL;
    long long length = 0;
    is_code rc = IS_OK;
    if (rank == 0) {
        rc = is_job_read_file(a->job_path, &text, err);
        length = rc == IS_OK ? (long long)strlen(text) : -1 - (long long)rc;
    }
    MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm);
    if (length < 0) {
        free(text);
        return rank == 0 ? rc : (is_code)(-1 - length);
    }
    if (rank != 0 && !(text = malloc((size_t)length + 1)))
        return is_error_set(err, IS_NOMEM, "out of memory");
    MPI_Bcast(text, (int)length + 1, MPI_CHAR, 0, comm);
    rc = is_job_parse(a->job_path, text, a->overrides, a->override_count, job, err);
    free(text);
    int code = rc;
    if (rc == IS_OK && rank == 0)
        code = is_job_check_points(*job, err);
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (code != IS_OK && rc == IS_OK) {
        is_job_free(job);
        rc = (is_code)code;
    }
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    is_signals_install(); /* before MPI_Init: batch systems may signal early */
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    is_error err;
    is_error_clear(&err);
    run_args a;
    is_job *job = NULL;
    is_code rc = parse_run_args(argc, argv, &a, &err);
    if (rc == IS_OK)
        rc = load_job(&a, MPI_COMM_WORLD, &job, &err);
    is_run_summary summary;
    if (rc == IS_OK) {
        if (rank == 0)
            fprintf(stderr,
                    "impactsweep: %s: model %s, %llu points, %d rank%s, writing %s%s\n",
                    a.job_path, job->model->name, (unsigned long long)job->grid.point_count,
                    size, size == 1 ? "" : "s", job->output, a.options.resume ? " (resume)" : "");
        rc = is_run(job, &a.options, MPI_COMM_WORLD, &summary, &err);
    }
    int status = 0;
    if (rank == 0) {
        if (rc == IS_OK || rc == IS_INTERRUPTED) {
            fprintf(stderr,
                    "impactsweep: %s %s: %llu points done, %llu failed, %llu pending; "
                    "this run computed %llu in %.2f s on %d rank%s (unit %llu points)\n",
                    rc == IS_OK ? "wrote" : "stopped, kept", job->output,
                    (unsigned long long)summary.counts[0], (unsigned long long)summary.counts[1],
                    (unsigned long long)summary.counts[2],
                    (unsigned long long)(summary.sched.done + summary.sched.failed),
                    summary.sched.seconds, size, size == 1 ? "" : "s",
                    (unsigned long long)summary.sched.unit_size);
        }
        if (rc == IS_OK) {
            is_error info_err;
            if (is_summary_print(job->output, stdout, &info_err) != IS_OK)
                fprintf(stderr, "impactsweep: %s\n", info_err.message);
        } else {
            fail(&err);
        }
    } else if (rc != IS_OK && err.code != IS_OK && strncmp(err.message, "rank 0", 6) != 0 &&
               rc != IS_JOB && rc != IS_PARAM && rc != IS_USAGE) {
        fprintf(stderr, "impactsweep: rank %d: %s\n", rank, err.message);
    }
    status = is_code_exit_status(rc);
    is_job_free(&job);
    free(a.overrides);
    MPI_Finalize();
    return status;
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported through is_error */
    if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *command = argv[1];
    if (strcmp(command, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(command, "eval") == 0)
        return cmd_eval(argc - 1, argv + 1);
    if (strcmp(command, "models") == 0)
        return cmd_models(argc - 1, argv + 1);
    if (strcmp(command, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(command, "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(command, "version") == 0 || strcmp(command, "--version") == 0) {
        is_provenance prov;
        is_provenance_collect(&prov, 1);
        printf("impactsweep %s (%s)\nHDF5 %s, SUNDIALS %s, inih %s\nbuild: %s\n",
               prov.engine_version, prov.git_commit, prov.hdf5_version, prov.sundials_version,
               prov.inih_version, prov.build);
        return 0;
    }
    return usage_error("unknown command '%s'", command);
}
