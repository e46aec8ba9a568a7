/* trace_file.h: the trace file of `impactsweep trace`, the trajectory of one point: a
 * small HDF5 file, netCDF-4 compatible and CF-1.8 where it applies, written whole by one
 * process with the serial HDF5 API (besides results*.c, the one part of impactsweep that
 * speaks HDF5).
 *
 * Layout (xarray.open_dataset(path, engine="h5netcdf")):
 *   dimension `sample`: `t` (a coordinate: the model's time unit and long_name) and one
 *       variable per channel of the model's trace (units, long_name);
 *   dimension `event`: `event_t`, `event_kind` (int32, flag_values / flag_meanings: the
 *       model's event kinds) and `event_CHANNEL`, the channels' values at each event;
 *   root attributes: impactsweep_trace (1, what marks a trace file), Conventions CF-1.8,
 *       model, model_description, model_version, parameter_NAME for every parameter,
 *       trace_option_NAME for the trace's own options, the point's result as eval gives
 *       it (status, output_NAME: numbers, or a category's name), time_window (T0, T1:
 *       only when the trace keeps the samples and events of that window of the run, whose
 *       start is still the point's), source (the parameters,
 *       or the result file and coordinates the point came from), engine_version,
 *       git_commit, build, hdf5_version, sundials_version, host, history.
 * The file is built under PATH.partial and renamed to PATH when complete, so a failure
 * never leaves a half-written PATH (nor touches an existing one). */
#ifndef IMPACTSWEEP_TRACE_FILE_H
#define IMPACTSWEEP_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

/* The root attribute that marks a trace file, and its layout version. */
#define IS_TRACE_FILE_ATTRIBUTE "impactsweep_trace"
#define IS_TRACE_FILE_VERSION 1

/* A finished trace, as the sink of `impactsweep trace` collected it. */
typedef struct is_trace_data {
    const is_model *model;       /* has a trace (model->trace != NULL) */
    const double *point;         /* model->param_count values */
    const double *options;       /* model->trace->option_count values */
    const double *outputs;       /* every output's values (an array output's all), as eval
                                    gives them for one point */
    uint8_t status;              /* is_point_status */
    size_t sample_count;
    const double *sample_t;      /* sample_count times */
    const double *samples;       /* sample_count x channel_count, sample by sample */
    size_t event_count;
    const double *event_t;
    const int *event_kind;
    const double *event_values;  /* event_count x channel_count */
    const double *window;        /* NULL, or {T0, T1}: only samples and events with
                                    T0 <= t <= T1 were kept (`trace --window`) */
    const char *source;          /* "parameters", or "FILE at rho=0.3 gamma=0.1" */
    const char *history;         /* the command that made the file */
} is_trace_data;

/* Before computing: IS_EXISTS (exit status 2) when `path` exists and !overwrite, IS_USAGE
 * when it is not a regular file (a directory, a symbolic link, a device): --overwrite
 * replaces regular files only. */
is_code is_trace_file_check(const char *path, int overwrite, is_error *err);

/* Writes the trace file at `path` (through PATH.partial; an existing regular file is
 * replaced only with `overwrite`). On failure nothing is left at PATH.partial and PATH
 * is as it was. */
is_code is_trace_file_write(const char *path, int overwrite, const is_trace_data *data,
                            is_error *err);

#endif
