/*
 * CcJSON — cJSON (Debian libcjson-dev, pkg-config libcjson) for the C plugins that read plan JSON.
 *
 * This shim exists because a SwiftPM system library target needs a module map over one header; it
 * includes the library's own header and adds nothing. C targets that depend on CcJSON include
 * <cjson/cJSON.h> (or this header) and link libcjson.
 */
#ifndef CCJSON_H
#define CCJSON_H

#include <cjson/cJSON.h>

#endif
