/* FixtureUpdateManyMismatch — a misbehaving plugin for the host's validator and tests: its update_many
 * does not have the effect of update. */
#ifndef FIXTURE_UPDATE_MANY_MISMATCH_H
#define FIXTURE_UPDATE_MANY_MISMATCH_H
#include <motion_plugin.h>
#endif
