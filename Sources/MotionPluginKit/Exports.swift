// The C types of motion_plugin.h (motion_host_v1, motion_plugin_v1, MOTION_* constants) are part of
// the SDK's surface: a plugin's entry function is declared with them.
@_exported public import CMotionABI
