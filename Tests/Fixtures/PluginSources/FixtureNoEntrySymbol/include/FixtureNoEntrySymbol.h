/* FixtureNoEntrySymbol — a misbehaving plugin for the host's validator and tests. It exports no motion_plugin_entry (only motion_plugin_main, a misspelt entry). */
#ifndef FIXTURENOENTRYSYMBOL_H
#define FIXTURENOENTRYSYMBOL_H
#include <motion_plugin.h>
#endif
