/* FixtureRefuses — a misbehaving plugin for the host's validator and tests. Its entry logs a reason and returns NULL. */
#ifndef FIXTUREREFUSES_H
#define FIXTUREREFUSES_H
#include <motion_plugin.h>
#endif
