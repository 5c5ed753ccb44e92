/*
 * json_scan.h — a minimal, allocation-free JSON scanner for CPerformers.
 *
 * The host validates every plan against the manifest before add_plan sees it, so a plugin needs only
 * to find fields, not to diagnose arbitrary JSON. This scanner still never reads outside the buffer
 * and reports malformed input as failure instead of crashing.
 */
#ifndef CPERFORMERS_JSON_SCAN_H
#define CPERFORMERS_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/** A byte range [start, start + length) of the caller's buffer. */
typedef struct json_span {
    const char *start;
    size_t length;
} json_span;

/** Finds the value of top-level key `key` in the object `object`. Returns false if absent or malformed. */
bool json_find(json_span object, const char *key, json_span *value_out);

/** Parses a number span. Returns false if it is not a finite JSON number. */
bool json_number(json_span value, double *out);

/** Copies a string span's contents (unescaped; \uXXXX outside ASCII becomes '?') into buffer. */
bool json_string(json_span value, char *buffer, size_t capacity);

/**
 * Iterates over an array span: on the first call set *cursor = 0; each call stores the next element
 * in *element and returns true, or returns false at the end (or on malformed input).
 */
bool json_array_next(json_span array, size_t *cursor, json_span *element);

/** Reads an array of 1..capacity numbers; returns the count, or 0 on failure. */
size_t json_numbers(json_span array, double *out, size_t capacity);

#endif
