// Describes every port of every LV2 plugin that lilv finds on LV2_PATH: the LV2 side of
// discovery-benchmark's "describe-all" row. Compiled at run time by the benchmark with
//   cc -O2 lilv-describe.c $(pkg-config --cflags --libs lilv-0)
// Prints: plugins, ports, a checksum of the values read, and the in-process time in milliseconds.
#include <lilv/lilv.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void) {
    double start = now_ms();
    LilvWorld *world = lilv_world_new();
    lilv_world_load_all(world);
    LilvNode *control = lilv_new_uri(world, LILV_URI_CONTROL_PORT);
    LilvNode *input = lilv_new_uri(world, LILV_URI_INPUT_PORT);
    LilvNode *unit = lilv_new_uri(world, "http://lv2plug.in/ns/extensions/units#unit");
    LilvNode *comment = lilv_new_uri(world, "http://www.w3.org/2000/01/rdf-schema#comment");
    const LilvPlugins *plugins = lilv_world_get_all_plugins(world);
    size_t plugin_count = 0, port_count = 0, text = 0;
    double checksum = 0;
    LILV_FOREACH (plugins, i, plugins) {
        const LilvPlugin *plugin = lilv_plugins_get(plugins, i);
        text += strlen(lilv_node_as_uri(lilv_plugin_get_uri(plugin)));
        LilvNode *name = lilv_plugin_get_name(plugin);
        if (name) { text += strlen(lilv_node_as_string(name)); lilv_node_free(name); }
        uint32_t ports = lilv_plugin_get_num_ports(plugin);
        for (uint32_t k = 0; k < ports; k++) {
            const LilvPort *port = lilv_plugin_get_port_by_index(plugin, k);
            if (!lilv_port_is_a(plugin, port, control) || !lilv_port_is_a(plugin, port, input)) continue;
            text += strlen(lilv_node_as_string(lilv_port_get_symbol(plugin, port)));
            LilvNode *port_name = lilv_port_get_name(plugin, port);
            if (port_name) { text += strlen(lilv_node_as_string(port_name)); lilv_node_free(port_name); }
            LilvNode *def = NULL, *min = NULL, *max = NULL;
            lilv_port_get_range(plugin, port, &def, &min, &max);
            if (def) { checksum += lilv_node_as_float(def); lilv_node_free(def); }
            if (min) { checksum += lilv_node_as_float(min); lilv_node_free(min); }
            if (max) { checksum += lilv_node_as_float(max); lilv_node_free(max); }
            LilvNodes *units = lilv_port_get_value(plugin, port, unit);
            if (units) { text += lilv_nodes_size(units); lilv_nodes_free(units); }
            LilvNodes *comments = lilv_port_get_value(plugin, port, comment);
            if (comments) { text += lilv_nodes_size(comments); lilv_nodes_free(comments); }
            port_count++;
        }
        plugin_count++;
    }
    lilv_node_free(comment);
    lilv_node_free(unit);
    lilv_node_free(input);
    lilv_node_free(control);
    lilv_world_free(world);
    double elapsed = now_ms() - start;
    printf("%zu %zu %.6g %zu %.3f\n", plugin_count, port_count, checksum, text, elapsed);
    return 0;
}
