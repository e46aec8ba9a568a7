/* progress.c: formatting and pacing the progress output (see progress.h). */
#include "progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

void is_progress_init(is_progress *p, FILE *stream, int live, double interval, uint64_t total,
                      uint64_t done_before, double now)
{
    memset(p, 0, sizeof *p);
    p->stream = stream;
    p->quiet = live == IS_PROGRESS_QUIET;
    p->live = live >= 0 ? live : !p->quiet && isatty(fileno(stream));
    p->interval = p->live ? 0.25 : interval;
    p->started = p->last_shown = now;
    p->total = total;
    p->done_before = done_before;
}

static void format_duration(double seconds, char *buf, size_t size)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, size, "?");
        return;
    }
    long s = lround(seconds);
    if (s >= 3600)
        snprintf(buf, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, size, "%lds", s);
}

void is_progress_format(const is_progress *p, double now, char *buf, size_t size)
{
    uint64_t stored = p->done_before + p->done + p->failed;
    double elapsed = now - p->started;
    double rate = elapsed > 0 ? (double)(p->done + p->failed) / elapsed : 0.0;
    double remaining = (double)(p->total - (stored < p->total ? stored : p->total));
    char eta[32], took[32];
    format_duration(rate > 0 ? remaining / rate : NAN, eta, sizeof eta);
    format_duration(elapsed, took, sizeof took);
    snprintf(buf, size, "%llu/%llu points (%.1f%%), %llu failed, %.4g points/s, elapsed %s, ETA %s",
             (unsigned long long)stored, (unsigned long long)p->total,
             p->total ? 100.0 * (double)stored / (double)p->total : 100.0,
             (unsigned long long)p->failed, rate, took, eta);
}

static void show(is_progress *p, double now, int final)
{
    if (p->quiet)
        return;
    char line[256];
    is_progress_format(p, now, line, sizeof line);
    if (p->live) {
        uint64_t stored = p->done_before + p->done + p->failed;
        int width = 24, filled = p->total ? (int)(width * (double)stored / (double)p->total) : width;
        char bar[32];
        for (int i = 0; i < width; i++)
            bar[i] = i < filled ? '#' : '.';
        bar[width] = '\0';
        fprintf(p->stream, "\r[%s] %s%s\033[K%s", bar, p->label ? p->label : "", line,
                final ? "\n" : "");
    } else {
        fprintf(p->stream, "impactsweep: %s%s\n", p->label ? p->label : "", line);
    }
    fflush(p->stream);
    p->last_shown = now;
}

void is_progress_add(is_progress *p, uint64_t done, uint64_t failed, double now)
{
    p->done += done;
    p->failed += failed;
    if (now - p->last_shown >= p->interval)
        show(p, now, 0);
}

void is_progress_finish(is_progress *p, double now)
{
    show(p, now, 1);
}
