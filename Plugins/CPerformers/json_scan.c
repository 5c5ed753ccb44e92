#include "json_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t skip_space(json_span s, size_t i) {
    while (i < s.length && (s.start[i] == ' ' || s.start[i] == '\t' || s.start[i] == '\n' || s.start[i] == '\r')) i++;
    return i;
}

/* Returns the index just past the string starting at i (s.start[i] == '"'), or 0 on failure. */
static size_t skip_string(json_span s, size_t i) {
    if (i >= s.length || s.start[i] != '"') return 0;
    for (i++; i < s.length; i++) {
        if (s.start[i] == '\\') {
            i++;
            continue;
        }
        if (s.start[i] == '"') return i + 1;
    }
    return 0;
}

/* Returns the index just past the value starting at i, or 0 on failure. */
static size_t skip_value(json_span s, size_t i) {
    i = skip_space(s, i);
    if (i >= s.length) return 0;
    char c = s.start[i];
    if (c == '"') return skip_string(s, i);
    if (c == '{' || c == '[') {
        int depth = 0;
        while (i < s.length) {
            char d = s.start[i];
            if (d == '"') {
                i = skip_string(s, i);
                if (i == 0) return 0;
                continue;
            }
            if (d == '{' || d == '[') depth++;
            if (d == '}' || d == ']') {
                depth--;
                if (depth == 0) return i + 1;
            }
            i++;
        }
        return 0;
    }
    /* number, true, false, null */
    size_t start = i;
    while (i < s.length && s.start[i] != ',' && s.start[i] != '}' && s.start[i] != ']' && s.start[i] != ' ' &&
           s.start[i] != '\n' && s.start[i] != '\r' && s.start[i] != '\t')
        i++;
    return i > start ? i : 0;
}

bool json_find(json_span object, const char *key, json_span *value_out) {
    size_t i = skip_space(object, 0);
    if (i >= object.length || object.start[i] != '{') return false;
    i++;
    size_t key_length = strlen(key);
    for (;;) {
        i = skip_space(object, i);
        if (i >= object.length) return false;
        if (object.start[i] == '}') return false;
        size_t key_end = skip_string(object, i);
        if (key_end == 0) return false;
        bool matches = key_end - i - 2 == key_length && memcmp(object.start + i + 1, key, key_length) == 0;
        i = skip_space(object, key_end);
        if (i >= object.length || object.start[i] != ':') return false;
        i = skip_space(object, i + 1);
        size_t value_end = skip_value(object, i);
        if (value_end == 0) return false;
        if (matches) {
            value_out->start = object.start + i;
            value_out->length = value_end - i;
            return true;
        }
        i = skip_space(object, value_end);
        if (i < object.length && object.start[i] == ',') i++;
    }
}

bool json_number(json_span value, double *out) {
    char buffer[64];
    if (value.length == 0 || value.length >= sizeof buffer) return false;
    memcpy(buffer, value.start, value.length);
    buffer[value.length] = '\0';
    char *end = NULL;
    double number = strtod(buffer, &end);
    if (end != buffer + value.length || !isfinite(number)) return false;
    *out = number;
    return true;
}

bool json_string(json_span value, char *buffer, size_t capacity) {
    if (capacity == 0 || value.length < 2 || value.start[0] != '"' || value.start[value.length - 1] != '"') return false;
    size_t n = 0;
    for (size_t i = 1; i + 1 < value.length; i++) {
        char c = value.start[i];
        if (c == '\\' && i + 2 < value.length) {
            char e = value.start[++i];
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u':
                if (i + 4 >= value.length) return false;
                {
                    char hex[5] = {value.start[i + 1], value.start[i + 2], value.start[i + 3], value.start[i + 4], 0};
                    long code = strtol(hex, NULL, 16);
                    c = code < 0x80 ? (char)code : '?';
                }
                i += 4;
                break;
            default: c = e; break; /* \" \\ \/ */
            }
        }
        if (n + 1 >= capacity) return false;
        buffer[n++] = c;
    }
    buffer[n] = '\0';
    return true;
}

bool json_array_next(json_span array, size_t *cursor, json_span *element) {
    size_t i = *cursor;
    if (i == 0) {
        i = skip_space(array, 0);
        if (i >= array.length || array.start[i] != '[') return false;
        i++;
    } else {
        i = skip_space(array, i);
        if (i >= array.length) return false;
        if (array.start[i] == ',') i++;
        else return false;
    }
    i = skip_space(array, i);
    if (i >= array.length || array.start[i] == ']') return false;
    size_t end = skip_value(array, i);
    if (end == 0) return false;
    element->start = array.start + i;
    element->length = end - i;
    *cursor = end;
    return true;
}

size_t json_numbers(json_span array, double *out, size_t capacity) {
    size_t cursor = 0, count = 0;
    json_span element;
    while (json_array_next(array, &cursor, &element)) {
        if (count == capacity || !json_number(element, &out[count])) return 0;
        count++;
    }
    return count;
}
