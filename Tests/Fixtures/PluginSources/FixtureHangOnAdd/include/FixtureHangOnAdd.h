/* FixtureHangOnAdd — a misbehaving plugin for the host's validator and tests. Its add_plan never returns (an endless loop). */
#ifndef FIXTUREHANGONADD_H
#define FIXTUREHANGONADD_H
#include <motion_plugin.h>
#endif
