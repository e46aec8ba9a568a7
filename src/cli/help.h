/* help.h: the command line's help texts: the usage summary, one page per command
 * (`impactsweep CMD --help`, `impactsweep help CMD`) and the man page made from them. */
#ifndef IMPACTSWEEP_CLI_HELP_H
#define IMPACTSWEEP_CLI_HELP_H

#include <stddef.h>
#include <stdio.h>

#include "../core/contract/model.h"

/* One command's help: its synopsis lines (a line beginning with a blank continues the one
 * before), a one-line summary, what it does, its options (a "-x, --long ARG" column and its
 * text, by pairs, NULL after the last) and its exit statuses ("exit status: ..."). */
typedef struct is_cli_command_doc {
    const char *name;
    const char *synopsis;
    const char *summary;
    const char *description;
    const char *const *options;
    const char *exit_status;
} is_cli_command_doc;

/* Every command's help, in the order the usage lists them; *count set. */
const is_cli_command_doc *is_cli_commands(size_t *count);

/* The environment variables the engine reads: name and meaning, by pairs, NULL after the
 * last. */
const char *const *is_cli_environment(void);

/* `impactsweep help [COMMAND | --man | --man-job | --reference]` (argv[0] is "help"):
 * prints the page asked for on stdout; the exit status. `builtin`: the built-in models,
 * which the reference and impactsweep-job(5) describe. */
int is_cli_help(int argc, char **argv, const is_model *const *builtin);

/* Text for roff: a '.' or '\'' at a line's start, '\\' and '-' escaped. */
void is_cli_roff_text(FILE *out, const char *text);

/* The usage summary of every command. */
void is_cli_usage(FILE *out);

/* An unknown first word of a command line, explained on stderr (a near miss of a
 * command, an option before the command, a file given as the command); the exit status. */
int is_cli_unknown_command(int argc, char **argv);

/* The help page of `command`; 0, or -1 (nothing printed) when there is no such command. */
int is_cli_command_help(const char *command, FILE *out);

/* Whether the arguments after a command ask for its help (-h or --help, before any
 * `--`). */
int is_cli_wants_help(int argc, char *const *argv);

/* The man page impactsweep(1), in roff, from the same texts (SEE ALSO names
 * impactsweep-job(5), reference.c's). */
void is_cli_man_page(FILE *out, const char *version);

#endif
