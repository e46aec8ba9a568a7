/* eval.h: `impactsweep eval MODEL name=value ...` and `impactsweep eval MODEL -`. */
#ifndef IMPACTSWEEP_CLI_EVAL_H
#define IMPACTSWEEP_CLI_EVAL_H

#include "../core/contract/evaluator.h"
#include "../core/contract/model.h"

/* Both take where the model runs (config: model, library, sha256, contained,
 * point_timeout; evaluator.h), a plug-in in an evaluator process of its own: a point that
 * crashes its code is answered with status FAILED_CRASH, one past the timeout with
 * FAILED_TIMEOUT, and the reason goes to stderr. */

/* The point of argv[2 ..] (name=value), evaluated and printed as one line of JSON. Returns
 * the exit status: 0 done, 1 failed, 2 refused (message on stderr), 75 stopped (pending). */
int is_cli_eval_args(const is_evaluator_config *config, int argc, char **argv);

/* One point a line from fd (`name` in messages), in the words of the command line, blank
 * lines and # comments skipped; one line of JSON a point, in the order of the lines, and
 * {"line": N, "error": "..."} for a line refused. Lines that arrive together are evaluated
 * in batches (one workspace for all). Returns 2 if a line was refused, else 75 if stopped
 * by a signal, else 1 if a point failed, else 0. */
int is_cli_eval_stream(const is_evaluator_config *config, int fd, const char *name);

/* The same, where `numbered` says that every line is "N<TAB>POINT": N is the line's number
 * in the answers and messages (the workers of is_cli_eval_pool). */
int is_cli_eval_stream_numbered(const is_evaluator_config *config, int fd, const char *name,
                                int numbered);

/* Is the line blank or a # comment, which the stream skips unanswered (blanks: space,
 * tab, carriage return)? The one rule for a stream and for the pool that deals its lines. */
int is_cli_eval_line_skipped(const char *line, size_t length);

/* The stream of fd on `workers` processes (`eval -n N -`): blocks of lines dealt to them in
 * turn, each answered by one of them (a stream of its own: its workspace, its evaluator),
 * the answers printed in the order of the lines, the line numbers those of fd. Returns the
 * exit status as is_cli_eval_stream does (the worst of the workers'), 1 if a worker ended
 * without answering its lines. */
int is_cli_eval_pool(const is_evaluator_config *config, int fd, const char *name, int workers);

#endif
