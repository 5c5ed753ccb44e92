/* FixtureFaults — a misbehaving plugin for the host's tests: crashes, aborts or hangs at a chosen frame. */
#ifndef FIXTUREFAULTS_H
#define FIXTUREFAULTS_H
#include <motion_plugin.h>
#endif
