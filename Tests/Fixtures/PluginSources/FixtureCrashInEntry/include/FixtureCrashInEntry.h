/* FixtureCrashInEntry — a misbehaving plugin for the sandbox tests. Its motion_plugin_entry writes through an invalid pointer (SIGSEGV). */
#ifndef FIXTURECRASHINENTRY_H
#define FIXTURECRASHINENTRY_H
#include <motion_plugin.h>
#endif
