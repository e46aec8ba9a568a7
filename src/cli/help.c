/* help.c: the command line's help texts, kept in one table so that the usage summary,
 * each command's --help and the man page say the same thing. */
#include "help.h"

#include <stdio.h>
#include <string.h>

#include "../core/base/provenance.h"
#include "../core/base/suggest.h"
#include "../core/contract/engine.h"
#include "reference.h"

typedef is_cli_command_doc command_help;

/* The exit statuses (error.h's list, and what each command makes of it). */
static const char run_exit[] =
    "exit status: 0 done, 1 run failed (the file stays resumable), 2 bad input or a damaged\n"
    "file (nothing touched), 3 with --strict: done, but points failed or a verified point\n"
    "is beyond verify_tolerance, 75 interrupted by a signal (continue with --resume; with\n"
    "-n, 130 after a third ^C).\n";
static const char eval_exit[] =
    "exit status: 0 the point is done, 1 it failed (the JSON says how), 2 bad input, 75\n"
    "stopped by a signal (status PENDING). With MODEL -: 2 if a line was refused, else 75\n"
    "if stopped, else 1 if a point failed, else 0.\n";
static const char trace_exit[] =
    "exit status: 0 the point is done, 1 it failed (the trace is written all the same) or\n"
    "the run failed, 2 bad input (nothing written), 75 stopped by a signal (nothing\n"
    "written).\n";
static const char models_exit[] =
    "exit status: 0, 2 an unknown model, a plug-in refused, or (--check) a breach of the\n"
    "model contract (the message says which).\n";
static const char info_exit[] =
    "exit status: 0, 1 the file could not be read, 2 not an impactsweep result file, or\n"
    "damaged (--verify: a checksum does not match).\n";
static const char merge_exit[] =
    "exit status: 0 merged, every point done or failed; 1 merged with points pending, or\n"
    "the merge failed (OUTPUT untouched); 2 bad input (pieces that do not belong together,\n"
    "a piece given twice, a damaged piece, OUTPUT exists without --overwrite, or OUTPUT\n"
    "holds points the merge does not; OUTPUT untouched); 75 interrupted (OUTPUT untouched).\n";
static const char plain_exit[] = "exit status: 0, 2 bad usage.\n";
static const char fit_exit[] =
    "exit status: 0 the fit converged, 1 it did not, 2 a bad FIT.ini or data file (the\n"
    "message names the file, line and key).\n";

/* The environment variables the engine reads (the man page's ENVIRONMENT, the usage). */
static const char *const environment[] = {
    "IMPACTSWEEP_MODEL_PATH",
    "plug-in model libraries: files or directories, separated by ':'",
    "IMPACTSWEEP_MPIEXEC",
    "the launcher `run -n N` starts (default: mpirun)",
    "IMPACTSWEEP_MPIIO_HINTS",
    "MPI-IO hints for the result file (key=value,...)",
    "IMPACTSWEEP_LOCK_TIMEOUT",
    "seconds after which a result file's lock whose heartbeat "
    "stopped is stale (default 30)",
    "IMPACTSWEEP_GRACE",
    "seconds between the batch system's stop signal and its kill (set "
    "by slurm/submit): work units stay well inside it",
    "IMPACTSWEEP_SHARE",
    "0: models redo, point by point, work they share between points "
    "(their memos off: the same results, more time)",
    "IMPACTSWEEP_ALLOW_WRITABLE_MODELS",
    "1: load plug-in libraries that others may write "
    "(refused by default, as ssh refuses such keys)",
    NULL};

static const char *const run_options[] = {
    "--set, -s SECTION.KEY=VALUE",
    "override or add any key of the job file (--set model.gamma=0.2, --set "
    "axis.rho.count=80); may be repeated",
    "--output, -o FILE",
    "the result file (the same as --set sweep.output=FILE)",
    "--piece I/N[:FIRST-LAST]",
    "compute only the I-th of N pieces of the grid (a job array): "
    "of equal size, or points FIRST to LAST (a box of the grid); "
    "`impactsweep merge` joins the pieces",
    "--resume",
    "continue an interrupted run in its file: only the points not stored yet",
    "--overwrite",
    "replace an existing result file (built beside it, swapped in at the end)",
    "--progress bar|lines",
    "a live bar, or a line per interval (default: bar on a terminal)",
    "--quiet, -q",
    "no progress output and no summary at the end; errors still go to stderr",
    "--dry-run",
    "check the job and print the grid, its points, the file size and a cost "
    "estimate with its range from a short sample (CPU time, in batches as a "
    "run computes them), warning when the sample is too small or uneven to "
    "trust; computes and writes nothing",
    "--pieces N",
    "with --dry-run: cut the grid into N pieces of equal estimated cost (from a "
    "longer sample) and print their bounds, for --piece I/N:FIRST-LAST",
    "-n, --ranks N",
    "start mpirun with N ranks itself (SIGINT/SIGTERM/SIGHUP become a "
    "polite stop, exit 75; a third one kills the run at once, exit 130); "
    "more ranks than cores oversubscribe them, with a notice; a launcher "
    "that starts no rank exits 2",
    "--strict",
    "exit with status 3 when the run completed but some points failed (their "
    "status is failed_*) or, with [sweep] verify, a verified point has an output "
    "beyond verify_tolerance; without it such a run exits 0 and its last line "
    "counts the failed points",
    NULL};

static const char *const trace_options[] = {
    "--output, -o FILE",
    "the trace file (default: trace.h5)",
    "--overwrite",
    "replace an existing trace file",
    "--max-samples N",
    "at most N samples (and N events) kept (default 4e6); a request the model "
    "can size beforehand beyond it is refused before it runs, naming its size",
    "--window T0,T1",
    "keep only the samples and events with T0 <= t <= T1 (numbers, T0 < T1); the "
    "point still runs from its start, so its state and outputs are the whole run's; "
    "the file's time_window attribute records it",
    "--nearest",
    "(RESULT.h5) a coordinate off its axis takes the axis's nearest value "
    "(in ratio on a log axis), and says which",
    "--OPTION VALUE",
    "the model's own trace options (chatter: --drop K, the drop of the "
    "point to follow)",
    NULL};

static const char *const models_options[] = {
    "--check",
    "run the model contract's conformance checks on MODEL: its table, "
    "eval_batch (a plug-in's in a process of its own) on a few points, alone and "
    "in a batch, within its arrays, and its trace of the defaults (time in order, "
    "finite, eval_batch's outputs); exit 2 naming what broke",
    "--timeout SECONDS",
    "with --check: a point of a plug-in that takes longer is a breach "
    "(default 60)",
    NULL};

static const char *const eval_options[] = {
    "-n N",
    "with MODEL -: the stream on N processes (blocks of 64 lines dealt in "
    "turn), answered in the order of the lines as one process answers them",
    "--timeout SECONDS",
    "kill the point past this time (status FAILED_TIMEOUT); the model "
    "then runs in an evaluator process",
    NULL};

static const char *const info_options[] = {
    "--log", "print the run log stored in the file (every run, resume and merge)",
    "--failures", "name every failed point (grid index, coordinates, status; the reason the "
                  "engine failed it, stored in the file): read in blocks, in bounded memory",
    "--verify", "check every checksum: the file's metadata, attributes and coordinates, and "
                "every stored point; damage exits 2, naming the dataset, the point and its "
                "block",
    NULL};

static const char *const merge_options[] = {
    "--overwrite",
    "replace an existing OUTPUT of the same job, only if the merge holds every "
    "point it holds (never a more complete result by a less complete one)",
    NULL};

static const char *const help_options[] = {
    "--man", "print the man page impactsweep(1) in roff",
    "--man-job", "print the man page impactsweep-job(5), the job file's sections and keys, in roff",
    "--reference", "print the reference (docs/reference.md): the commands, the job file's "
                   "sections and keys, and the built-in models' parameters and outputs, in "
                   "Markdown",
    NULL};

static const char *const no_options[] = {NULL};

static const command_help commands[] = {
    {"run",
     "run JOB.ini [--set SECTION.KEY=VALUE ...] [--output FILE] [--piece I/N[:FIRST-LAST]]\n"
     " [--resume | --overwrite] [--progress bar|lines] [--quiet] [--dry-run [--pieces N]]\n"
     " [--strict]"
     " [-n RANKS]",
     "compute a sweep into a result file",
     "Reads the job file (an INI file naming a model, fixed parameters and swept axes),\n"
     "checks every key and every point of the grid, and computes the grid into one HDF5\n"
     "file that opens in xarray. Run it under `mpirun -n N` (rank 0 coordinates and\n"
     "computes) or give -n N. A run killed at any moment keeps every stored point:\n"
     "continue it with --resume.",
     run_options, run_exit},
    {"eval",
     "eval MODEL [NAME=VALUE ...] [--timeout SECONDS]\neval MODEL - [-n N] [--timeout SECONDS]",
     "evaluate points and print their outputs",
     "Evaluates MODEL at one parameter point (defaults for the parameters not given) and\n"
     "prints every output and the point's status as one line of JSON. MODEL is a model's\n"
     "name or the path of a plug-in library (run in a process of its own: a crash there is\n"
     "status FAILED_CRASH). `impactsweep models MODEL` lists its parameters. With -, reads\n"
     "one point a line from standard input (NAME=VALUE words; blank lines and # comments\n"
     "skipped) and answers each with a line of JSON, in order, from one process:\n"
     "{\"line\": N, \"error\": ...} for a line it refuses.",
     eval_options, eval_exit},
    {"trace",
     "trace MODEL [NAME=VALUE ...] [--output FILE] [--overwrite] [--OPTION VALUE ...]\n"
     "trace RESULT.h5 AXIS=VALUE ... [--nearest] [--output FILE] [--overwrite]",
     "write the time history behind one point",
     "Writes the trajectory of one point with its events as an xarray-readable file: for\n"
     "collision the states, force and indentation to separation; for chatter one drop's\n"
     "impact sequence; for the stop oscillator the orbit with its rebounds, resets and\n"
     "contact phases. The second form takes the point of an existing result file by its\n"
     "coordinates (values of the grid; a value off the grid is refused, naming the nearest,\n"
     "unless --nearest takes it).",
     trace_options, trace_exit},
    {"models", "models [MODEL] [--check [--timeout SECONDS]]", "list the models, or describe one",
     "Without MODEL: every model, built in or found as a plug-in (IMPACTSWEEP_MODEL_PATH),\n"
     "with where it comes from (an unusable library on the path is skipped with a warning).\n"
     "With MODEL: its parameters (defaults, admissible ranges, where they apply) and\n"
     "outputs (units).",
     models_options, models_exit},
    {"info", "info FILE [--log] [--failures] [--verify]", "summarise (and verify) a result file",
     "Prints a result file's job, provenance, points done / failed / pending and a summary\n"
     "of every output; for a refined sweep also the cells each level refined and why, and\n"
     "each class's computed and inferred points; the first failed points (--failures: all);\n"
     "with --verify, then checks it against its checksums. Runs under mpirun too, sharing\n"
     "the reading among the ranks.",
     info_options, info_exit},
    {"merge", "merge OUTPUT PIECE.h5 ... [--overwrite]",
     "join the pieces of a job array into one file",
     "Joins the result files of `run --piece I/N` (all N of them, of the same job) into\n"
     "OUTPUT, checking that they belong together (one job, each piece once, every\n"
     "checksum). An existing OUTPUT is replaced only by a merge holding every point it\n"
     "holds. A merge with points missing says which pieces they are. Runs under mpirun too.",
     merge_options, merge_exit},
    {"fit", "fit FIT.ini", "fit a model's parameters to measured data",
     "Fits the [free] parameters of the FIT.ini's model (start, lower, upper) to the\n"
     "measured outputs of its data file (columns named after parameters and outputs,\n"
     "sigma_OUTPUT optional) by bounded least squares from several starts, every\n"
     "iteration's evaluations one `eval` batch over the ranks; prints the parameters,\n"
     "standard errors and warnings, writes a JSON report (with the data and the fitted\n"
     "curve and its band: `impactplot REPORT` draws the figure from it) and a figure if\n"
     "asked. Runs the Python fitter impactfit (needs scipy and pandas).",
     no_options, fit_exit},
    {"version", "version (or --version)", "print the version and what it was built with",
     "Prints impactsweep's version and git commit, the HDF5, SUNDIALS and inih versions and\n"
     "the build's compiler flags: the same provenance every result file records.",
     no_options, plain_exit},
    {"help", "help [COMMAND | --man | --man-job | --reference]",
     "print this summary, a command's help, a man page or the reference",
     "Without COMMAND: every command with what it does, their usage and the environment.\n"
     "With COMMAND: its help page (the same as `impactsweep COMMAND --help`). The man pages\n"
     "and the reference are written from the same tables as the help, the job parser's and\n"
     "the models'.",
     help_options, plain_exit},
};

static const command_help *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* A synopsis's lines after `prefix`: a line is a form of the command, after
 * "impactsweep ", unless it begins with a blank (a continuation, indented under it). In
 * roff the program's name is bold and the text escaped. */
static void roff_text(FILE *out, const char *text);

static void print_synopsis(FILE *out, const char *synopsis, const char *prefix, int roff)
{
    const char *line = synopsis;
    while (*line) {
        size_t length = strcspn(line, "\n");
        int continued = line[0] == ' ';
        fputs(prefix, out);
        if (roff) {
            fputs(continued ? "            " : "\\fBimpactsweep\\fR ", out);
            char text[256];
            snprintf(text, sizeof text, "%.*s", (int)length, line);
            roff_text(out, text);
            fputc('\n', out);
        } else {
            fprintf(out, "%s%.*s\n", continued ? "            " : "impactsweep ", (int)length,
                    line);
        }
        line += length + (line[length] == '\n');
    }
}

const is_cli_command_doc *is_cli_commands(size_t *count)
{
    *count = sizeof commands / sizeof *commands;
    return commands;
}

const char *const *is_cli_environment(void)
{
    return environment;
}

void is_cli_usage(FILE *out)
{
    fputs("usage: impactsweep COMMAND [ARGUMENTS]\n\ncommands:\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("\nsynopses:\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        print_synopsis(out, commands[i].synopsis, "  ", 0);
    fputs("\n`impactsweep COMMAND --help` (or `impactsweep help COMMAND`) explains one "
          "command and its exit statuses.\n\nenvironment:\n",
          out);
    for (const char *const *e = environment; *e; e += 2)
        fprintf(out, "  %-25s %s\n", e[0], e[1]);
}

int is_cli_command_help(const char *command, FILE *out)
{
    const command_help *c = find(command);
    if (!c)
        return -1;
    fprintf(out, "impactsweep %s: %s\n\nusage:\n", c->name, c->summary);
    print_synopsis(out, c->synopsis, "  ", 0);
    fprintf(out, "\n%s\n", c->description);
    if (c->options[0]) {
        fputs("\noptions:\n", out);
        for (const char *const *o = c->options; *o; o += 2)
            fprintf(out, "  %s\n      %s\n", o[0], o[1]);
    }
    fprintf(out, "\n%s", c->exit_status);
    return 0;
}

int is_cli_wants_help(int argc, char *const *argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

/* Text for roff: a leading '.' or '\'' would be a request, and '\' an escape. */
void is_cli_roff_text(FILE *out, const char *text)
{
    roff_text(out, text);
}

static void roff_text(FILE *out, const char *text)
{
    int line_start = 1;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else
            fputc(*p, out);
        line_start = *p == '\n';
    }
}

void is_cli_man_page(FILE *out, const char *version)
{
    fprintf(out, ".TH IMPACTSWEEP 1 \"\" \"impactsweep %s\" \"User Commands\"\n", version);
    fputs(".SH NAME\nimpactsweep \\- parallel parameter sweeps of impacting mechanical "
          "systems\n.SH SYNOPSIS\n.nf\n",
          out);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        print_synopsis(out, commands[i].synopsis, "", 1);
    fputs(".fi\n.SH DESCRIPTION\nA job file names a model and a grid of parameter values; "
          "the ranks of an MPI job compute the grid's points and write them into one HDF5 "
          "file that opens in xarray. The README (share/doc/impactsweep) describes the "
          "models, the job file and the result file.\n.SH COMMANDS\n",
          out);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        const command_help *c = &commands[i];
        fprintf(out, ".SS %s\n", c->name);
        roff_text(out, c->description);
        fputc('\n', out);
        for (const char *const *o = c->options; *o; o += 2) {
            fputs(".TP\n.B ", out);
            roff_text(out, o[0]);
            fputc('\n', out);
            roff_text(out, o[1]);
            fputc('\n', out);
        }
    }
    fputs(".SH ENVIRONMENT\n", out);
    for (const char *const *e = environment; *e; e += 2) {
        fprintf(out, ".TP\n.B %s\n", e[0]);
        roff_text(out, e[1]);
        fputc('\n', out);
    }
    fputs(".SH EXIT STATUS\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (i > 0 && commands[i].exit_status == commands[i - 1].exit_status)
            continue;
        fprintf(out, ".TP\n.B %s\n", commands[i].name);
        roff_text(out, commands[i].exit_status + strlen("exit status: "));
    }
    fputs(".SH SEE ALSO\n\\fBimpactsweep-job\\fR(5), \\fBmpirun\\fR(1), \\fBsbatch\\fR(1), "
          "\\fBh5dump\\fR(1)\n",
          out);
}

/* An unknown first word, explained: an option before the command (options follow it),
 * a result file or a job file where a command is expected, or a near miss of a command. */
int is_cli_unknown_command(int argc, char **argv)
{
    static const char *const commands[] = {"run",   "eval",    "trace", "models", "info",
                                           "merge", "fit", "version", "help",  NULL};
    const char *word = argv[1], *command = NULL;
    for (int i = 2; i < argc && !command; i++)
        for (int c = 0; commands[c] && !command; c++)
            if (strcmp(argv[i], commands[c]) == 0)
                command = commands[c];
    size_t n = strlen(word);
    int result = n > 3 && strcmp(word + n - 3, ".h5") == 0;
    int job = n > 4 && strcmp(word + n - 4, ".ini") == 0;
    char hint[96];
    if (word[0] == '-' && command)
        fprintf(stderr,
                "impactsweep: '%s' is an option of a command: options come after the "
                "command (impactsweep %s ... %s)\n",
                word, command, word);
    else if (word[0] == '-')
        fprintf(stderr,
                "impactsweep: '%s' is not a command: options come after the command "
                "(impactsweep COMMAND ... %s)\n",
                word, word);
    else if (result || job)
        fprintf(stderr, "impactsweep: '%s' is a %s, not a command: impactsweep %s %s\n", word,
                result ? "result file" : "job file", result ? "info" : "run", word);
    else
        fprintf(stderr, "impactsweep: unknown command '%s'%s\n", word,
                is_suggest_text(hint, sizeof hint, is_suggest_among(word, commands)));
    fputs("impactsweep: `impactsweep --help` lists the commands\n", stderr);
    return is_code_exit_status(IS_USAGE);
}

/* A misused `help`: the message and the usage on stderr, exit status 2. */
static int help_usage_error(const char *fmt, const char *arg)
{
    fputs("impactsweep: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    is_cli_usage(stderr);
    return is_code_exit_status(IS_USAGE);
}

int is_cli_help(int argc, char **argv, const is_model *const *builtin)
{
    if (argc < 2) {
        is_cli_usage(stdout);
        return 0;
    }
    static const char *const pages[] = {"--man", "--man-job", "--reference", NULL};
    int page = -1;
    for (int i = 0; pages[i]; i++)
        if (strcmp(argv[1], pages[i]) == 0)
            page = i;
    if (argc > 2)
        return help_usage_error("help takes one COMMAND, --man, --man-job or --reference, not "
                                "'%s'",
                                argv[2]);
    if (page >= 0) {
        is_provenance prov;
        is_provenance_collect(&prov, 1);
        if (page == 0)
            is_cli_man_page(stdout, prov.engine_version);
        else if (page == 1)
            is_cli_man_job(stdout, prov.engine_version, builtin);
        else
            is_cli_reference(stdout, builtin);
        return 0;
    }
    const char *command = is_cli_wants_help(argc, argv) ? "help" : argv[1];
    if (is_cli_command_help(command, stdout) != 0)
        return help_usage_error("help: unknown command '%s'", argv[1]);
    return 0;
}
