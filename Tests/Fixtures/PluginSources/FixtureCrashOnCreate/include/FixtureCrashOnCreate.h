/* FixtureCrashOnCreate — a misbehaving plugin for the host's validator and tests. Its create_performer writes through an invalid pointer (SIGSEGV). */
#ifndef FIXTURECRASHONCREATE_H
#define FIXTURECRASHONCREATE_H
#include <motion_plugin.h>
#endif
