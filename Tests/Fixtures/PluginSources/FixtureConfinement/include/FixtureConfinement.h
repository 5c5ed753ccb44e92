// FixtureConfinement exports only motion_plugin_entry (motion_plugin.h); SwiftPM wants a public header folder.
