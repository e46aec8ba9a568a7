/* progress.h: progress of a sweep on stderr (rank 0): points done, rate, ETA. A live
 * bar when stderr is a terminal, otherwise one line every few seconds (Slurm logs). */
#ifndef IMPACTSWEEP_PROGRESS_H
#define IMPACTSWEEP_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct is_progress {
    FILE *stream;
    int live;              /* redraw one line in place */
    int quiet;             /* print nothing */
    double interval;       /* seconds between lines (or redraws when live) */
    double started, last_shown;
    uint64_t total;        /* points in the grid */
    uint64_t done_before;  /* already stored when this run started (resume) */
    uint64_t done, failed; /* computed in this run */
    const char *label;     /* put before each line (e.g. "level 2/5: "); NULL: none */
} is_progress;

/* live: 1 a bar redrawn in place, 0 a line per interval, IS_PROGRESS_AUTO ask isatty(),
 * IS_PROGRESS_QUIET nothing at all (`run --quiet`). `now` is a monotonic clock in
 * seconds. */
#define IS_PROGRESS_AUTO (-1)
#define IS_PROGRESS_QUIET (-2)
void is_progress_init(is_progress *p, FILE *stream, int live, double interval, uint64_t total,
                      uint64_t done_before, double now);
/* Adds newly finished points; prints if the interval has passed. */
void is_progress_add(is_progress *p, uint64_t done, uint64_t failed, double now);
/* Prints the final state (and ends the live line). */
void is_progress_finish(is_progress *p, double now);

/* The line itself, for tests: "1200/1600 points (75.0%), 3 failed, 410 points/s, ETA 1s". */
void is_progress_format(const is_progress *p, double now, char *buf, size_t size);

#endif
