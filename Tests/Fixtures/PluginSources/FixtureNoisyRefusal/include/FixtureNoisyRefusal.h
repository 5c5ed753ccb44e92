/* FixtureNoisyRefusal — a misbehaving plugin for the host's tests: its entry logs a reason, lets another thread log a line, and refuses. */
#ifndef FIXTURENOISYREFUSAL_H
#define FIXTURENOISYREFUSAL_H
#include <motion_plugin.h>
#endif
