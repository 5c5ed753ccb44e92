// Fader: an example per-frame entry plugin in C (see Fader.c). Its only export is motion_plugin_entry,
// declared in <motion_plugin.h>; this header exists because a SwiftPM C target needs a public header.
#include <motion_plugin.h>
