/* FixtureWrongABIMajor — a misbehaving plugin for the host's validator and tests. Its entry returns an interface that claims ABI 2.0. */
#ifndef FIXTUREWRONGABIMAJOR_H
#define FIXTUREWRONGABIMAJOR_H
#include <motion_plugin.h>
#endif
