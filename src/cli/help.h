/* help.h: the command line's help texts: the usage summary, one page per command
 * (`impactsweep CMD --help`, `impactsweep help CMD`) and the man page made from them. */
#ifndef IMPACTSWEEP_CLI_HELP_H
#define IMPACTSWEEP_CLI_HELP_H

#include <stdio.h>

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

/* The man page impactsweep(1), in roff, from the same texts. */
void is_cli_man_page(FILE *out, const char *version);

#endif
