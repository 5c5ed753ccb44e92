/* FixtureLateCalls — a misbehaving plugin for the host's tests: its thread calls the host after its performer was destroyed; it emits from threads of its own; its entry counts its calls. */
#ifndef FIXTURELATECALLS_H
#define FIXTURELATECALLS_H
#include <motion_plugin.h>
#endif
