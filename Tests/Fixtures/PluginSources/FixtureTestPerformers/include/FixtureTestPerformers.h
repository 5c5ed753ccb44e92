/*
 * FixtureTestPerformers — MotionTesting's in-process test performers (Sources/MotionTesting/Runtime/
 * TestPerformers.swift) across the C ABI, so the runtime's behaviour tests run the same scenarios through
 * a plugin. Every call is logged through host->log(MOTION_LOG_DEBUG, ...) with the in-process CallLog's
 * strings. Manifest: Tests/Fixtures/plugins/test-performers.json. Exports only motion_plugin_entry.
 */
#ifndef FIXTURETESTPERFORMERS_H
#define FIXTURETESTPERFORMERS_H
#include <motion_plugin.h>
#endif
