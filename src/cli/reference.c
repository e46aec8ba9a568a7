/* reference.c: the reference in Markdown (`impactsweep help --reference`, committed as
 * docs/reference.md and compared with it by a test) and the man page impactsweep-job(5)
 * (`impactsweep help --man-job`), both written from the tables the program itself runs
 * on: the commands' help (help.c), the job parser's sections and keys (job.h) and the
 * models' parameters and outputs. A key added to a table is documented by that alone. */
#include "reference.h"

#include <ctype.h>
#include <string.h>

#include "../core/contract/engine.h"
#include "../core/job/job.h"
#include "describe.h"
#include "help.h"

/* What a job file is, how bad input is answered, and an example (run as a dry run by the
 * reference's test): the texts both pages share. */
static const char job_intro[] =
    "A job file is an INI file (read with libinih): [SECTION] headers, KEY = VALUE lines, "
    "and comment lines that start with ; or # (a ; after a blank also starts a comment at "
    "the end of a line). Lines may be of any length, and a value may continue on indented "
    "lines. `impactsweep run JOB.ini` reads it; `--set SECTION.KEY=VALUE` overrides or adds "
    "any key (--set model.gamma=0.2, --set axis.rho.count=80) and `--output FILE` is "
    "`--set sweep.output=FILE`. The result file stores the job after the overrides as "
    "text, which reads back as the same job.";

static const char job_bad_input[] =
    "Every key is checked before anything runs, and nothing is written when one is wrong: "
    "an unknown section or key (with the name it was probably meant to be), a value of the "
    "wrong type or outside its admissible range, a parameter both fixed and swept or given "
    "where the model's choices leave it unused, an axis that is not strictly monotonic, or "
    "a point of the grid the model refuses is reported on stderr as FILE:LINE: [SECTION] "
    "KEY: what is wrong, and `impactsweep run` exits with status 2. So does a result file "
    "given where a job file is expected (named as such), and a new result file that would "
    "not fit on its file system.";

static const char job_example[] = "[sweep]\n"
                                  "model = chatter\n"
                                  "output = example.h5\n"
                                  "title = Chattering square\n"
                                  "\n"
                                  "[model]            ; fixed parameter values\n"
                                  "n = 4\n"
                                  "samples = 100\n"
                                  "\n"
                                  "[axis.rho]         ; one section per swept parameter\n"
                                  "from = 0.05\n"
                                  "to = 1.0\n"
                                  "count = 40\n"
                                  "scale = linear\n"
                                  "\n"
                                  "[axis.gamma]\n"
                                  "values = 0.05, 0.1, 0.2, 0.4\n";

/* --- Markdown ---------------------------------------------------------------------- */

/* Text on one line: line breaks become blanks; '*' (emphasis) escaped, and in a table's
 * cell '|' too. */
static void md_text(FILE *out, const char *text, int cell)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\n')
            fputc(p[1] ? ' ' : '\n', out);
        else if (*p == '*' || (cell && *p == '|'))
            fprintf(out, "\\%c", *p);
        else
            fputc(*p, out);
    }
}

/* A one-line summary as a sentence: a capital first, a full stop last. */
static void md_sentence(FILE *out, const char *text)
{
    fputc(toupper((unsigned char)text[0]), out);
    md_text(out, text + 1, 0);
    fputs(".\n\n", out);
}

/* A synopsis in a fenced block, each form after "usage:" or "or:" (never a line that
 * starts with the program's name, which a docs test would take for a command to run). */
static void md_synopsis(FILE *out, const char *synopsis)
{
    fputs("```text\n", out);
    int first = 1;
    for (const char *line = synopsis; *line;) {
        size_t length = strcspn(line, "\n");
        if (line[0] == ' ')
            fprintf(out, "%19s%.*s\n", "", (int)length - 1, line + 1);
        else
            fprintf(out, "%s impactsweep %.*s\n", first ? "usage:" : "   or:", (int)length, line);
        first = 0;
        line += length + (line[length] == '\n');
    }
    fputs("```\n\n", out);
}

static void md_commands(FILE *out)
{
    size_t count;
    const is_cli_command_doc *commands = is_cli_commands(&count);
    fputs("## Commands\n\n`impactsweep COMMAND --help` (or `impactsweep help COMMAND`) prints "
          "a command's page, as below.\n\n| command | what it does |\n| --- | --- |\n",
          out);
    for (size_t i = 0; i < count; i++) {
        fprintf(out, "| [%s](#impactsweep-%s) | ", commands[i].name, commands[i].name);
        md_text(out, commands[i].summary, 1);
        fputs(" |\n", out);
    }
    fputc('\n', out);
    for (size_t i = 0; i < count; i++) {
        const is_cli_command_doc *c = &commands[i];
        fprintf(out, "### impactsweep %s\n\n", c->name); /* its anchor apart from ## Models */
        md_sentence(out, c->summary);
        md_synopsis(out, c->synopsis);
        md_text(out, c->description, 0);
        fputs("\n\n", out);
        if (c->options[0])
            fputs("Options:\n\n", out);
        for (const char *const *o = c->options; *o; o += 2) {
            fprintf(out, "- `%s`: ", o[0]);
            md_text(out, o[1], 0);
            fputc('\n', out);
        }
        fputs(c->options[0] ? "\nExit status: " : "Exit status: ", out);
        md_text(out, c->exit_status + strlen("exit status: "), 0);
        fputc('\n', out);
    }
    fputs("## Environment\n\n| variable | meaning |\n| --- | --- |\n", out);
    for (const char *const *e = is_cli_environment(); *e; e += 2) {
        fprintf(out, "| `%s` | ", e[0]);
        md_text(out, e[1], 1);
        fputs(" |\n", out);
    }
    fputc('\n', out);
}

static void md_job_keys(FILE *out, const char *section)
{
    is_job_key_doc key;
    fputs("| key | admissible values | default | meaning |\n| --- | --- | --- | --- |\n", out);
    for (size_t i = 0; is_job_key_doc_at(section, i, &key); i++) {
        fprintf(out, "| `%s` | ", key.name);
        md_text(out, key.values, 1);
        fputs(" | ", out);
        md_text(out, key.fallback, 1);
        fputs(" | ", out);
        md_text(out, key.help, 1);
        fputs(" |\n", out);
    }
    fputc('\n', out);
}

static void md_job(FILE *out)
{
    fputs("## Job file\n\n", out);
    md_text(out, job_intro, 0);
    fprintf(out,
            "\n\nAn example:\n\n```ini\n%s```\n\n| section | what it holds |\n"
            "| --- | --- |\n",
            job_example);
    for (const is_job_section_doc *s = is_job_sections(); s->name; s++) {
        fprintf(out, "| `[%s]` | ", s->name);
        md_text(out, s->help, 1);
        fputs(" |\n", out);
    }
    fputc('\n', out);
    for (const is_job_section_doc *s = is_job_sections(); s->name; s++) {
        fprintf(out, "### [%s]\n\n", s->name);
        md_sentence(out, s->help);
        if (s->has_keys)
            md_job_keys(out, s->name);
        else
            fputs("The built-in models' parameters are listed under [Models](#models) "
                  "below.\n\n",
                  out);
    }
    fputs("### Bad input\n\n", out);
    md_text(out, job_bad_input, 0);
    fputs("\n\n", out);
}

static void md_model(FILE *out, const is_model *m)
{
    fprintf(out, "### %s\n\n", m->name);
    md_sentence(out, m->description);
    if (m->references) {
        fputs("References: ", out);
        md_text(out, m->references, 0);
        fputs("\n\n", out);
    }
    fputs("| parameter | default | admissible | unit | meaning |\n"
          "| --- | --- | --- | --- | --- |\n",
          out);
    for (size_t p = 0; p < m->param_count; p++) {
        const is_param *param = &m->params[p];
        char range[256], fallback[64], when[512];
        is_param_format_range(param, range, sizeof range);
        is_cli_param_default_text(param, fallback, sizeof fallback);
        is_param_format_when(m, p, when, sizeof when);
        fprintf(out, "| `%s` | ", param->name);
        md_text(out, fallback, 1);
        fputs(" | ", out);
        md_text(out, range, 1);
        fputs(" | ", out);
        md_text(out, param->unit, 1);
        fputs(" | ", out);
        md_text(out, param->meaning, 1);
        if (*when) {
            fputs(" (used with ", out);
            md_text(out, when, 1);
            fputc(')', out);
        }
        fputs(param->flags & IS_PARAM_FIXED_ONLY ? " (cannot be swept) |\n" : " |\n", out);
    }
    fputs("\n| output | type | unit | meaning |\n| --- | --- | --- | --- |\n", out);
    for (size_t o = 0; o < m->output_count; o++) {
        static const char *const types[] = {"real", "integer", "category"};
        const is_output *output = &m->outputs[o];
        fprintf(out, "| `%s` | %s | ", output->name, types[output->type]);
        md_text(out, output->unit, 1);
        fputs(" | ", out);
        md_text(out, output->long_name, 1);
        for (int c = 0; output->type == IS_OUTPUT_CATEGORY && output->categories[c]; c++)
            fprintf(out, "%s%d = %s", c ? ", " : ": ", c, output->categories[c]);
        if (output->length > 1) {
            char dim[160];
            is_output_dimension(output, dim, sizeof dim);
            fprintf(out, " (array: %zu values a point, dimension `%s`)", output->length, dim);
        }
        fputs(" |\n", out);
    }
    fputc('\n', out);
}

void is_cli_reference(FILE *out, const is_model *const *models)
{
    fputs("# impactsweep reference\n\nWritten by `impactsweep help --reference` from the "
          "program's own tables: the commands' help texts, the job parser's sections and "
          "keys, and the built-in models' parameters and outputs. A test compares this file "
          "with what the built program writes; after changing one of those tables, write it "
          "again with `build/impactsweep help --reference > docs/reference.md`.\n\n"
          "Contents: [Commands](#commands), [Environment](#environment), "
          "[Job file](#job-file), [Models](#models).\n\n",
          out);
    md_commands(out);
    md_job(out);
    fputs("## Models\n\n`impactsweep models MODEL` prints the same tables, for a plug-in "
          "too. A parameter is a key of [model], or swept as [axis.NAME]; the outputs are "
          "the result file's variables.\n\n",
          out);
    for (const is_model *const *m = models; *m; m++)
        md_model(out, *m);
}

/* --- impactsweep-job(5) ------------------------------------------------------------ */

static void roff_paragraph(FILE *out, const char *text)
{
    is_cli_roff_text(out, text);
    fputc('\n', out);
}

/* A one-line summary as a sentence, as md_sentence. */
static void roff_sentence(FILE *out, const char *text)
{
    char first[2] = {(char)toupper((unsigned char)text[0]), '\0'};
    is_cli_roff_text(out, first);
    is_cli_roff_text(out, text + 1);
    fputs(".\n", out);
}

static void man_model(FILE *out, const is_model *m)
{
    fprintf(out, ".SS %s\n", m->name);
    roff_sentence(out, m->description);
    for (size_t p = 0; p < m->param_count; p++) {
        const is_param *param = &m->params[p];
        char range[256], fallback[64], when[512], text[1280];
        is_param_format_range(param, range, sizeof range);
        is_cli_param_default_text(param, fallback, sizeof fallback);
        is_param_format_when(m, p, when, sizeof when);
        snprintf(text, sizeof text, "%s [%s]; default %s, admissible %s%s%s%s", param->meaning,
                 param->unit, fallback, range, *when ? "; used with " : "", when,
                 param->flags & IS_PARAM_FIXED_ONLY ? "; cannot be swept" : "");
        fprintf(out, ".TP\n.B %s\n", param->name);
        roff_paragraph(out, text);
    }
}

void is_cli_man_job(FILE *out, const char *version, const is_model *const *models)
{
    fprintf(out, ".TH IMPACTSWEEP-JOB 5 \"\" \"impactsweep %s\" \"File Formats\"\n", version);
    fputs(".SH NAME\nimpactsweep-job \\- the job file of impactsweep: a model, its fixed "
          "parameters and the axes of a sweep\n.SH SYNOPSIS\n.B impactsweep run\n.I JOB.ini\n"
          ".SH DESCRIPTION\n",
          out);
    roff_paragraph(out, job_intro);
    for (const is_job_section_doc *s = is_job_sections(); s->name; s++) {
        fprintf(out, ".SH \"THE [%s] SECTION\"\n", s->name);
        roff_sentence(out, s->help);
        is_job_key_doc key;
        for (size_t i = 0; s->has_keys && is_job_key_doc_at(s->name, i, &key); i++) {
            fprintf(out, ".TP\n.B %s\n", key.name);
            roff_paragraph(out, key.help);
            fputs(".br\nValues: ", out);
            is_cli_roff_text(out, key.values);
            fputs("; default: ", out);
            roff_paragraph(out, key.fallback);
        }
        if (!s->has_keys) {
            fputs(".PP\nThe parameters of the built-in models (a plug-in's: "
                  "\\fBimpactsweep models\\fR \\fIMODEL\\fR):\n",
                  out);
            for (const is_model *const *m = models; *m; m++)
                man_model(out, *m);
        }
    }
    fputs(".SH EXAMPLE\n.nf\n.RS\n", out);
    is_cli_roff_text(out, job_example);
    fputs(".RE\n.fi\n.SH \"EXIT STATUS\"\n", out);
    roff_paragraph(out, job_bad_input);
    fputs(".SH \"SEE ALSO\"\n\\fBimpactsweep\\fR(1)\n", out);
}
